package apply

import (
	"context"
	"maps"
	"time"
)

// The kernel folds IPVS per-CPU counters into the values it reports only
// when its rate estimator runs, every two seconds of kernel time (and a
// user-mode-linux guest's clock runs unevenly). A reading is trusted once
// two readings ipvsSettle apart agree, within ipvsSettleTimeout.
const (
	ipvsSettle        = 2100 * time.Millisecond
	ipvsSettleTimeout = 15 * time.Second
)

// Count reads the target's real-server counters once they have settled;
// Stop reads them again once settled and returns the differences.
func (d *IPVS) Count(ctx context.Context, t Target) (Counting, error) {
	before, err := d.settledCounters(ctx, t)
	if err != nil {
		return nil, err
	}
	return &ipvsCounting{d: d, target: t, before: before}, nil
}

type ipvsCounting struct {
	d      *IPVS
	target Target
	before map[string]uint64
}

// Stop returns each real server's new connections since Count.
func (c *ipvsCounting) Stop(ctx context.Context) (Counters, error) {
	after, err := c.d.settledCounters(ctx, c.target)
	if err != nil {
		return Counters{}, err
	}
	out := Counters{Source: "ipvs real-server connections", Endpoints: map[string]uint64{}}
	for ep, n := range after {
		out.Endpoints[ep] = n - min(n, c.before[ep])
	}
	return out, nil
}

// settledCounters reads the connection counter of each real server of t
// until two readings ipvsSettle apart agree.
func (d *IPVS) settledCounters(ctx context.Context, t Target) (map[string]uint64, error) {
	prev, err := d.connectionCounts(t)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(ipvsSettleTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(ipvsSettle):
		}
		cur, err := d.connectionCounts(t)
		if err != nil {
			return nil, err
		}
		if maps.Equal(prev, cur) {
			return cur, nil
		}
		prev = cur
	}
	return prev, nil
}

func (d *IPVS) connectionCounts(t Target) (map[string]uint64, error) {
	stats, err := d.RealServerCounters(t.Address(), t.Port.Protocol)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	for _, s := range stats {
		out[s.Addr.String()] = s.Connections
	}
	return out, nil
}
