package sweep

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/sim/metric"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// incremental adds one endpoint to the middle filler service (the sink
// answers for it, so traffic is unaffected) and times kube-proxy's way of
// programming that change; with sweep.incrementalBatch it then times a
// batch of such changes, or of Service creations (kind
// scenario.BatchServices), in one sync.
func (l *sweepLab) incremental(ctx context.Context, batch int, kind string) error {
	if l.fillers.Len() == 0 {
		return nil
	}
	i := model.IndexOf(l.model.Services, "target-middle") + 1
	if i <= 0 || i >= l.model.Services.Len() {
		i = l.model.Services.Len() - 2
	}
	ep := model.Endpoint{IP: lastUsable(l.fillers.Config().EndpointCIDR), Ready: true, Node: "node-1"}
	first := apply.Change{Service: i, Endpoint: ep}
	sync, err := l.dp.Apply(ctx, l.model, first)
	if err != nil {
		return err
	}
	l.base.SyncIncrementalS, l.base.SyncIncrementalCPUS = sync.Duration.Seconds(), sync.CPU.Seconds()
	l.base.SyncIncrementalUserS = sync.UserCPU.Seconds()
	switch {
	case batch < 2:
		return nil
	case kind == scenario.BatchServices:
		return l.creations(ctx, first, batch)
	}
	return l.batch(ctx, first, batch)
}

// creations creates n services in one partial sync on top of first, and
// times it. They stay in the kernel until the rules are next loaded: they
// come after every service of the point, so no target's lookup crosses
// them.
func (l *sweepLab) creations(ctx context.Context, first apply.Change, n int) error {
	created, err := l.created(n)
	if err != nil {
		return err
	}
	sync, err := l.dp.Apply(ctx, first.After(l.model), apply.Change{Service: -1, Created: created})
	if err != nil {
		return fmt.Errorf("a partial sync creating %d services: %w", n, err)
	}
	l.base.SyncBatchS, l.base.SyncBatch, l.base.SyncBatchKind = sync.Duration.Seconds(), n, scenario.BatchServices
	return nil
}

// batch adds one endpoint to each of up to n filler services other than
// the one first changed, in one partial sync on top of first, and times it.
func (l *sweepLab) batch(ctx context.Context, first apply.Change, n int) error {
	m := first.After(l.model)
	indexes := batchServices(m.Services, first.Service, n)
	if len(indexes) < 2 {
		return nil
	}
	changes := make([]apply.Change, len(indexes))
	addr := first.Endpoint.IP
	for j, k := range indexes {
		addr = addr.Prev()
		changes[j] = apply.Change{Service: k, Endpoint: model.Endpoint{IP: addr, Ready: true, Node: "node-1"}}
	}
	c := changes[0]
	c.More = changes[1:]
	sync, err := l.dp.Apply(ctx, m, c)
	if err != nil {
		return fmt.Errorf("a partial sync of %d changes: %w", len(indexes), err)
	}
	l.base.SyncBatchS, l.base.SyncBatch = sync.Duration.Seconds(), len(indexes)
	return nil
}

// batchServices picks up to n services spread evenly over l, none of them
// a sweep target or the service at index skip.
func batchServices(l model.List, skip, n int) []int {
	total := l.Len()
	var out []int
	for j := range n {
		k := (2*j + 1) * total / (2 * n)
		if k == skip || strings.HasPrefix(l.At(k).Name, "target-") || slices.Contains(out, k) {
			continue
		}
		out = append(out, k)
	}
	return out
}

func lastUsable(p netip.Prefix) netip.Addr {
	a := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 2
	v := (uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])) + host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// batchNote is the batched partial sync for the setup line, when timed.
func batchNote(p results.Point) string {
	if p.SyncBatch == 0 {
		return ""
	}
	if p.SyncBatchKind == scenario.BatchServices {
		return fmt.Sprintf(", %d Services created in one sync %s", p.SyncBatch, metric.FormatSeconds(p.SyncBatchS))
	}
	return fmt.Sprintf(", %d changes in one sync %s", p.SyncBatch, metric.FormatSeconds(p.SyncBatchS))
}
