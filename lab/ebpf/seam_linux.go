package ebpf

import (
	"context"
	"time"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// The types below copy those of the runner's dataplane seam
// (lab/apply/seam.go, not yet on main). When it lands, each becomes an
// alias (type Sync = apply.Sync, ...) and TC and Sock satisfy
// apply.Dataplane unchanged; seam_linux_test.go checks the method set.

// Sync is the outcome of programming a model or applying one change.
// Engine is false: svclab times its own map writes.
type Sync struct {
	Payload  render.Stats
	Duration time.Duration
	Engine   bool
}

// Change is one change to a programmed model: Endpoint added to the
// service at index Service of the model.
type Change struct {
	Service  int
	Endpoint model.Endpoint
}

// Target is one service port whose traffic is counted.
type Target struct {
	Service *model.Service
	Port    model.Port
}

// Counters are the kernel's own count of new connections to one target.
type Counters struct {
	Source    string
	Endpoints map[string]uint64
	Cascade   *Cascade
}

// Cascade is an iptables statistic cascade; always nil here.
type Cascade struct {
	Chain   string
	Entered uint64
	Rules   []CascadeRule
}

// CascadeRule is one rule of a statistic cascade.
type CascadeRule struct {
	Index       int
	Target      string
	Probability float64
	Packets     uint64
}

// Counting is an open count of one target's connections.
type Counting interface {
	Stop(ctx context.Context) (Counters, error)
}
