package session

import (
	"errors"
	"fmt"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/topo"
)

// RunLease is a run's lease (see lab/lease) on its prefix.
type RunLease struct {
	*lease.Lease
	prefix string
}

// AcquireRun takes the lease of the run prefix; Done ends it.
func AcquireRun(prefix string) (*RunLease, error) {
	l, err := lease.Acquire(prefix, lease.KindRun)
	if err != nil {
		return nil, err
	}
	return &RunLease{Lease: l, prefix: prefix}, nil
}

// Done releases the run's lease once nothing of the run is left;
// otherwise it keeps the lease file (for cleanup) and says what to run. It
// returns err joined with that.
func (l *RunLease) Done(err error) error {
	left := leftovers(l.prefix)
	if len(left) == 0 {
		return errors.Join(err, l.Release())
	}
	l.Abandon()
	hint := fmt.Errorf("could not remove %v: run `svclab cleanup --prefix %s`", left, l.prefix)
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
