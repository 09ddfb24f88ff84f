package analyze

import (
	"errors"
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
)

// TestEveryDumpKindHasAMode: each kube-proxy mode sim/dataplane names is a
// dump kind with a complete row in modes (a tracer and its services), and
// no row is for a kind sim/dataplane does not name; an unknown kind is
// refused as a bad dump.
func TestEveryDumpKindHasAMode(t *testing.T) {
	for _, md := range dataplane.Modes() {
		e, ok := modes[string(md)]
		if !ok || e.compile == nil || e.targets == nil {
			t.Errorf("dump kind %s has no complete entry in modes (compile, targets)", md)
		}
	}
	if len(modes) != len(dataplane.Modes()) {
		t.Errorf("modes has %d entries, sim/dataplane names %d modes", len(modes), len(dataplane.Modes()))
	}
	_, err := NewTracer(&Dump{Kind: "userspace"}, Options{})
	var de *DumpError
	if !errors.As(err, &de) {
		t.Errorf("NewTracer of an unknown kind: error %v, want a DumpError", err)
	}
	if got := targetsOf(&Dump{Kind: "userspace"}); got != nil {
		t.Errorf("targets of an unknown kind: %v, want none", got)
	}
}
