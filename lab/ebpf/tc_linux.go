package ebpf

import (
	"context"
	"errors"
	"fmt"

	"github.com/cilium/ebpf/link"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

// TCConfig is what the "ebpf" dataplane needs.
type TCConfig struct {
	// NodeNetns is the node namespace (named in errors; the veths say where
	// they are).
	NodeNetns string
	// Clients are the node-side veths of the client pods; their traffic to
	// ClusterIPs is balanced.
	Clients []Veth
	// Attach picks tcx or clsact; empty means tcx where the kernel has it.
	Attach AttachMode
	// Capacity sizes the maps; zero means DefaultCapacity.
	Capacity Capacity
}

// TC is the "ebpf" dataplane: tc programs on the client pods' node-side
// veths. Its methods are those of the runner's dataplane seam.
type TC struct {
	cfg      TCConfig
	lb       *lb
	attached []*attachment
}

// NewTC loads the programs and attaches them to every client veth. The
// caller must Close it; on error nothing is left attached.
func NewTC(cfg TCConfig) (*TC, error) {
	if len(cfg.Clients) == 0 {
		return nil, errors.New("ebpf: no client veth to attach to")
	}
	if cfg.Capacity == (Capacity{}) {
		cfg.Capacity = DefaultCapacity
	}
	l, err := newLB(cfg.Capacity)
	if err != nil {
		return nil, err
	}
	d := &TC{cfg: cfg, lb: l}
	for _, v := range cfg.Clients {
		a, err := attachTC(v, cfg.Attach, l.objs.SvcIngress, l.objs.SvcEgress)
		if err != nil {
			return nil, errors.Join(err, d.Close())
		}
		d.attached = append(d.attached, a)
	}
	return d, nil
}

// Name is sim/dataplane's EBPF.
func (d *TC) Name() string { return string(dataplane.EBPF) }

// Version names the loader and how the programs are attached.
func (d *TC) Version() string { return "cilium/ebpf " + ciliumVersion + ", " + d.mode() }

// mode is how the programs are attached ("tcx" or "clsact").
func (d *TC) mode() string {
	if len(d.attached) > 0 && d.attached[0].clsact {
		return string(AttachClsact)
	}
	return string(AttachTCX)
}

// FullSync writes the whole model into the maps with batch updates, as an
// agent does on start (the maps are emptied first, untimed).
func (d *TC) FullSync(_ context.Context, m *model.Model) (Sync, error) { return d.lb.program(m) }

// Program is FullSync: batch updates are the fastest load.
func (d *TC) Program(_ context.Context, m *model.Model) (Sync, error) { return d.lb.program(m) }

// Apply adds one endpoint: the changed backend slots, then the service
// entry (a batch, one change at a time).
func (d *TC) Apply(ctx context.Context, m *model.Model, c Change) (Sync, error) {
	if err := c.RefuseCreations(d.Name()); err != nil {
		return Sync{}, err
	}
	if len(c.More) > 0 {
		return oneByOne(ctx, m, c, d.Apply)
	}
	return d.lb.apply(m, c)
}

// Count starts counting new connections to t per backend.
func (d *TC) Count(ctx context.Context, t Target) (Counting, error) { return d.lb.count(ctx, t) }

// Reset empties the maps; the programs stay attached.
func (d *TC) Reset(_ context.Context) error { return d.lb.reset() }

// Close detaches the programs and releases the maps. It is idempotent.
func (d *TC) Close() error {
	var errs []error
	for _, a := range d.attached {
		errs = append(errs, a.detach())
	}
	d.attached = nil
	if d.lb != nil {
		errs = append(errs, d.lb.close())
		d.lb = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("ebpf dataplane in netns %s: %w", d.cfg.NodeNetns, err)
	}
	return nil
}

// LinkIDs are the kernel IDs of the BPF links the dataplane holds, for a
// check that nothing outlives it.
func (d *TC) LinkIDs() []link.ID {
	var ids []link.ID
	for _, a := range d.attached {
		for _, l := range a.links {
			if info, err := l.Info(); err == nil {
				ids = append(ids, info.ID)
			}
		}
	}
	return ids
}

// MapMemory is each map's memory as the kernel accounts it (memlock), in
// bytes, by map name.
func (d *TC) MapMemory() (map[string]uint64, error) { return d.lb.memory() }
