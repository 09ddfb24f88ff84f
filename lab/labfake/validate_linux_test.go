package labfake

import (
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
)

// TestEveryModeHasAValidator: the fake checks the payload of every
// kube-proxy mode sim/dataplane names, and of nothing else.
func TestEveryModeHasAValidator(t *testing.T) {
	for _, md := range dataplane.Modes() {
		if validators[md] == nil {
			t.Errorf("mode %s has no validator in validators", md)
		}
	}
	if len(validators) != len(dataplane.Modes()) {
		t.Errorf("validators has %d entries, sim/dataplane names %d modes", len(validators), len(dataplane.Modes()))
	}
}
