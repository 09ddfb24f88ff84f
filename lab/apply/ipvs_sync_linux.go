package apply

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	cipvs "github.com/cloudflare/ipvs"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// Program is FullSync: IPVS mode has one way to load its state.
func (d *IPVS) Program(ctx context.Context, m *model.Model) (Sync, error) { return d.FullSync(ctx, m) }

// Apply adds c.Endpoint to service c.Service of an already programmed m, doing
// what the IPVS proxier of the endpoint's family does for that change
// (Change.Families; the other family's proxier never hears of it): it adds
// the ipset members the endpoint brings (kube-proxy adds only the
// difference), rewrites its constant iptables rules (it does so on every
// sync), lists the kernel's virtual servers and adds the real server to the
// changed one. Rendering is not timed. A batch is applied one change at a
// time.
func (d *IPVS) Apply(ctx context.Context, m *model.Model, c Change) (Sync, error) {
	if err := c.RefuseCreations(string(dataplane.IPVS)); err != nil {
		return Sync{}, err
	}
	if len(c.More) > 0 {
		return OneByOne(ctx, m, c, d.Apply)
	}
	after := c.After(m)
	var sync Sync
	for _, f := range c.Families() {
		mb, ma := model.ForFamily(*m, f), model.ForFamily(*after, f)
		s, err := d.applyFamily(&mb, &ma, c.Service)
		if err != nil {
			return Sync{}, fmt.Errorf("ipvs incremental sync in netns %s: %s: %w", d.Netns, f, err)
		}
		sync.Payload, sync.Duration = addStats(sync.Payload, s.Payload), sync.Duration+s.Duration
	}
	return sync, nil
}

// applyFamily is Apply for one family: before and after are that family's
// models, i the changed service.
func (d *IPVS) applyFamily(before, after *model.Model, i int) (Sync, error) {
	one := func(m *model.Model) *model.Model {
		return &model.Model{Cluster: m.Cluster, Family: m.Family, Services: model.Slice{*m.Services.At(i)}}
	}
	pb, _, err := renderIPVSFamily(one(before), d.Options)
	if err != nil {
		return Sync{}, err
	}
	pa, stats, err := renderIPVSFamily(one(after), d.Options)
	if err != nil {
		return Sync{}, err
	}
	var rules bytes.Buffer
	if _, err := ipvs.RenderIPTables(&rules, after, d.Options); err != nil {
		return Sync{}, err
	}
	servers, err := parseIPVSAdm(pa.ipvsadm.Bytes())
	if err != nil {
		return Sync{}, fmt.Errorf("rendered ipvsadm text: %w", err)
	}
	adds := addedSetMembers(pb.ipset.String(), pa.ipset.String())
	start := time.Now()
	if err := d.restoreSetLines(adds); err != nil {
		return Sync{}, fmt.Errorf("ipset: %w", err)
	}
	if err := d.restoreRules(d.iptablesFor(after.Family), rules.Bytes(), pa.jumps.Bytes()); err != nil {
		return Sync{}, fmt.Errorf("iptables rules: %w", err)
	}
	if err := d.updateServers(servers); err != nil {
		return Sync{}, err
	}
	return Sync{Payload: stats, Duration: time.Since(start)}, nil
}

// addedSetMembers returns the `add` lines of after that before lacks, as an
// `ipset restore` script that tolerates members already present.
func addedSetMembers(before, after string) string {
	had := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		had[l] = true
	}
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(after))
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "add ") && !had[l] {
			b.WriteString(l + " -exist\n")
		}
	}
	return b.String()
}

// updateServers reconciles only the given virtual servers, leaving the
// kernel's others alone (unlike syncServers, which removes what it was not
// given).
func (d *IPVS) updateServers(servers []virtualServer) error {
	kc, err := d.dial()
	if err != nil {
		return err
	}
	defer kc.Close()
	existing, err := kc.Services()
	if err != nil {
		return fmt.Errorf("list virtual servers: %w", err)
	}
	have := make(map[serviceKey]cipvs.Service, len(existing))
	for _, s := range existing {
		have[keyOf(s.Service)] = s.Service
	}
	for _, vs := range servers {
		if err := syncServer(kc, vs, have); err != nil {
			return err
		}
	}
	return nil
}
