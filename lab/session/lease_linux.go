package session

import (
	"errors"
	"fmt"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/topo"
)

// FinishLease releases the run's lease once nothing of the run is left;
// otherwise it keeps the lease file (for cleanup) and says what to run.
func FinishLease(l *lease.Lease, prefix string, err error) error {
	left := leftovers(prefix)
	if len(left) == 0 {
		return errors.Join(err, l.Release())
	}
	l.Abandon()
	hint := fmt.Errorf("could not remove %v: run `svclab cleanup --prefix %s`", left, prefix)
	return errors.Join(err, hint)
}

// leftovers lists the namespaces of the run that still exist.
func leftovers(prefix string) []string {
	names, _ := netns.List(prefix)
	var out []string
	for _, n := range names {
		if topo.BelongsToRun(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
