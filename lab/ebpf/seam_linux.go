package ebpf

import "github.com/svclab/svclab/lab/apply"

// The dataplane seam's types (lab/apply/seam.go): TC and Sock are
// apply.Dataplanes.
type (
	// Sync is the outcome of programming a model or applying one change;
	// Engine is false: svclab times its own map writes.
	Sync = apply.Sync
	// Change is what one sync programs.
	Change = apply.Change
	// Target is one service port whose traffic is counted.
	Target = apply.Target
	// Counters are the kernel's own count of new connections to one target.
	Counters = apply.Counters
	// Counting is an open count of one target's connections.
	Counting = apply.Counting
)

// oneByOne applies a batched change one addition at a time: the maps have
// no batched form of kube-proxy's partial sync.
var oneByOne = apply.OneByOne
