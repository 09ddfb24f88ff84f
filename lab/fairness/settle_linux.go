package fairness

import (
	"context"
	"time"

	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/podserver"
)

// Bounds of the wait for the pod servers to catch up with the client.
const (
	settleTimeout = 3 * time.Second
	settlePoll    = 10 * time.Millisecond
)

// settledServerStats waits until the pod servers have accepted the want
// connections the client completed since before, then returns their
// counts. A connect completes in the kernel (the SYN-ACK) before the
// server's accept(2) returns it, so on a busy machine the last connections
// of a run can still sit in an accept queue when the client is done: read
// at once, the servers would count fewer connections than the kernel's
// counters, and the next run (of another dataplane) would count them.
// After settleTimeout it returns what the servers have counted by then.
func settledServerStats(ctx context.Context, lab machine.Lab, before map[string]podserver.Stats, want uint64) map[string]podserver.Stats {
	deadline := time.Now().Add(settleTimeout)
	for {
		after := lab.ServerStats()
		if acceptedSince(before, after) >= want || time.Now().After(deadline) || ctx.Err() != nil {
			return after
		}
		time.Sleep(settlePoll)
	}
}

// acceptedSince is the connections every pod server accepted between two
// snapshots.
func acceptedSince(before, after map[string]podserver.Stats) uint64 {
	var n uint64
	for pod, a := range after {
		n += a.Accepted - before[pod].Accepted
	}
	return n
}
