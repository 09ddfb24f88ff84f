package apply

import (
	"bytes"
	"fmt"
	"time"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/render/nftables"
)

// Sync is the outcome of programming a model: the payload's size and how
// long the kernel tool took to load it.
type Sync struct {
	Payload  render.Stats
	Duration time.Duration
}

// Dataplane renders a model and programs it into a node namespace.
type Dataplane interface {
	// Name is the dataplane's name, e.g. "iptables-nft".
	Name() string
	// FullSync programs m from scratch in one restore or transaction.
	FullSync(m *model.Model) (Sync, error)
	// Reset removes everything the dataplane programmed.
	Reset() error
	// Version names the tool that loads the rules.
	Version() string
}

// New returns the dataplane called name ("iptables-legacy", "iptables-nft",
// "nftables") for the node namespace nodeNetns.
func New(name, nodeNetns string) (Dataplane, error) {
	switch name {
	case "iptables-legacy", "iptables-nft":
		ipt, err := NewIPTables(nodeNetns, name)
		if err != nil {
			return nil, err
		}
		return &iptablesDataplane{ipt: ipt, opts: iptables.DefaultOptions()}, nil
	case "nftables":
		return &nftablesDataplane{nft: &NFTables{Netns: nodeNetns}}, nil
	}
	return nil, fmt.Errorf("dataplane %q is not supported in the lab here (use iptables-legacy, iptables-nft or nftables)", name)
}

type iptablesDataplane struct {
	ipt  *IPTables
	opts iptables.Options
}

func (d *iptablesDataplane) Name() string    { return "iptables-" + d.ipt.Backend }
func (d *iptablesDataplane) Version() string { return d.ipt.Version() }
func (d *iptablesDataplane) Reset() error    { return d.ipt.Reset() }

// FullSync loads the payload in one restore (timed), then the jump rules from
// the built-in chains (not timed: kube-proxy ensures them separately).
func (d *iptablesDataplane) FullSync(m *model.Model) (Sync, error) {
	var payload bytes.Buffer
	stats, err := iptables.Render(&payload, m, d.opts)
	if err != nil {
		return Sync{}, err
	}
	took, err := d.ipt.Restore(payload.Bytes(), true)
	if err != nil {
		return Sync{}, fmt.Errorf("%s full sync: %w", d.Name(), err)
	}
	var jumps bytes.Buffer
	if _, err := iptables.RenderJumps(&jumps, d.opts); err != nil {
		return Sync{}, err
	}
	if _, err := d.ipt.Restore(jumps.Bytes(), true); err != nil {
		return Sync{}, fmt.Errorf("%s jump rules: %w", d.Name(), err)
	}
	return Sync{Payload: stats, Duration: took}, nil
}

type nftablesDataplane struct{ nft *NFTables }

func (d *nftablesDataplane) Name() string    { return "nftables" }
func (d *nftablesDataplane) Version() string { return d.nft.Version() }
func (d *nftablesDataplane) Reset() error    { return d.nft.Reset() }

// FullSync loads the whole script in one nft transaction (timed).
func (d *nftablesDataplane) FullSync(m *model.Model) (Sync, error) {
	var script bytes.Buffer
	stats, err := nftables.Render(&script, m, nftables.Options{})
	if err != nil {
		return Sync{}, err
	}
	took, err := d.nft.Load(script.Bytes())
	if err != nil {
		return Sync{}, fmt.Errorf("nftables full sync: %w", err)
	}
	return Sync{Payload: stats, Duration: took}, nil
}

// IPTablesOf returns the iptables applier behind an iptables dataplane.
func IPTablesOf(d Dataplane) (*IPTables, bool) {
	if x, ok := d.(*iptablesDataplane); ok {
		return x.ipt, true
	}
	return nil, false
}
