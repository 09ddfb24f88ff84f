package traffic

import (
	"context"
	"sync"
	"time"
)

// maxLag is how far the pacer lets its schedule fall behind the clock before
// it forgets the missed slots. Within it, late workers catch up in a short
// burst so the long-run rate holds despite timer overshoot; beyond it, the
// run simply cannot keep up and no larger burst is released.
const maxLag = 20 * time.Millisecond

// pacer hands out start times for new connections, one every interval,
// shared by all workers. A nil pacer means no rate limit.
type pacer struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

// newPacer returns a pacer for rate connections per second, or nil when
// rate is 0 (unlimited).
func newPacer(rate float64) *pacer {
	if rate <= 0 {
		return nil
	}
	return &pacer{interval: time.Duration(float64(time.Second) / rate)}
}

// reserve claims the next start slot as seen at time now.
func (p *pacer) reserve(now time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next.Before(now.Add(-maxLag)) {
		p.next = now
	}
	slot := p.next
	p.next = slot.Add(p.interval)
	return slot
}

// wait blocks until the caller's slot comes or ctx ends.
func (p *pacer) wait(ctx context.Context) error {
	if p == nil {
		return ctx.Err()
	}
	d := time.Until(p.reserve(time.Now()))
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
