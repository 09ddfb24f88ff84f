package timeline

import (
	"sync"
	"time"

	tl "github.com/svclab/svclab/sim/timeline"
)

// recorder collects observations from many goroutines, timed from the
// window's start.
type recorder struct {
	start time.Time
	mu    sync.Mutex
	obs   []tl.Observation
}

// since is t's time in the window.
func (r *recorder) since(t time.Time) time.Duration { return t.Sub(r.start) }

// add records one observation (before the window: dropped).
func (r *recorder) add(o tl.Observation) {
	if o.At < 0 {
		return
	}
	r.mu.Lock()
	r.obs = append(r.obs, o)
	r.mu.Unlock()
}

// all returns what was recorded.
func (r *recorder) all() []tl.Observation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]tl.Observation(nil), r.obs...)
}
