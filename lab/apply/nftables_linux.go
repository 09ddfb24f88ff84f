package apply

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/nftables"
)

// NFTables applies nft scripts in one namespace.
type NFTables struct {
	Netns string
	Table string // default "kube-proxy"
	// Options shape the rendered scripts (the kube-proxy version).
	Options nftables.Options
}

func (p *NFTables) table() string {
	if p.Table == "" {
		return "kube-proxy"
	}
	return p.Table
}

// Load runs the script as one `nft -f -` transaction and times it: wall
// clock and nft's CPU time.
func (p *NFTables) Load(script []byte) (Took, error) {
	start := time.Now()
	_, cpu, err := netns.OutputCPU(p.Netns, script, "nft", "-f", "-")
	if err != nil {
		return Took{}, fmt.Errorf("load %d bytes of nftables rules: %w", len(script), err)
	}
	return tookOf(time.Since(start), cpu), nil
}

// Reset deletes the kube-proxy tables of both families (ip and ip6); a
// missing table is not an error.
func (p *NFTables) Reset() error {
	var errs []error
	for _, family := range []string{"ip", "ip6"} {
		_, err := netns.Output(p.Netns, nil, "nft", "delete", "table", family, p.table())
		if err != nil && !strings.Contains(err.Error(), "No such file or directory") {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// nftFamily is the nftables family of a model family's table.
func nftFamily(f model.Family) string {
	if f == model.IPv6 {
		return "ip6"
	}
	return "ip"
}

// List returns `nft list table ip kube-proxy`.
func (p *NFTables) List() ([]byte, error) {
	out, err := netns.Output(p.Netns, nil, "nft", "list", "table", "ip", p.table())
	if err != nil {
		return nil, errors.Join(fmt.Errorf("list nftables table %s", p.table()), err)
	}
	return out, nil
}

// Version returns `nft --version`.
func (p *NFTables) Version() string {
	out, err := netns.Output(p.Netns, nil, "nft", "--version")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// sync renders m and loads it, one transaction per family (kube-proxy's
// proxier of each family owns its own table: ip, ip6).
func (p *NFTables) sync(m *model.Model) (Sync, error) {
	var sync Sync
	for _, f := range model.Families(m.Services) {
		mf := model.ForFamily(*m, f)
		var script bytes.Buffer
		stats, err := nftables.Render(&script, &mf, p.Options)
		if err != nil {
			return Sync{}, fmt.Errorf("nftables %s script: %w", f, err)
		}
		took, err := p.Load(script.Bytes())
		if err != nil {
			return Sync{}, fmt.Errorf("nftables %s full sync in netns %s: %w", f, p.Netns, err)
		}
		sync = sync.add(stats, took)
	}
	return sync, nil
}

// syncChange loads the transaction kube-proxy runs for change c to m: the
// proxier of each family a new endpoint belongs to runs one, carrying that
// family's additions (each service's part rendered on the model the
// previous ones left).
func (p *NFTables) syncChange(m *model.Model, c Change) (Sync, error) {
	if len(c.Created) > 0 {
		return p.syncCreations(m, c)
	}
	var sync Sync
	for _, f := range c.Families() {
		var script bytes.Buffer
		var stats render.Stats
		cur := m
		for _, one := range c.Each() {
			if model.FamilyOf(one.Endpoint.IP) != f {
				continue
			}
			mf := model.ForFamily(*cur, f)
			s, err := nftables.RenderIncremental(&script, &mf, one.Service, one.Endpoint, p.Options)
			if err != nil {
				return Sync{}, err
			}
			stats, cur = addStats(stats, s), one.After(cur)
		}
		if script.Len() == 0 {
			continue
		}
		took, err := p.Load(script.Bytes())
		if err != nil {
			return Sync{}, fmt.Errorf("nftables %s incremental sync in netns %s: %w", f, p.Netns, err)
		}
		sync = sync.add(stats, took)
	}
	return sync, nil
}

// syncCreations loads the transaction kube-proxy runs for a change that
// creates services: the partial sync from m to the model after the change
// (nftables.RenderSync, kube-proxy's partial sync: only the new and
// changed services are written) of each family the change wakes
// (Change.Families). Rendering is not timed.
func (p *NFTables) syncCreations(m *model.Model, c Change) (Sync, error) {
	after := c.After(m)
	var sync Sync
	for _, f := range c.Families() {
		before, next := model.ForFamily(*m, f), model.ForFamily(*after, f)
		var script bytes.Buffer
		stats, err := nftables.RenderSync(&script, &before, &next, p.Options)
		if err != nil {
			return Sync{}, fmt.Errorf("nftables %s partial sync creating %d services: %w", f, len(c.Created), err)
		}
		took, err := p.Load(script.Bytes())
		if err != nil {
			return Sync{}, fmt.Errorf("nftables %s partial sync creating %d services in netns %s: %w", f, len(c.Created), p.Netns, err)
		}
		sync = sync.add(stats, took)
	}
	return sync, nil
}
