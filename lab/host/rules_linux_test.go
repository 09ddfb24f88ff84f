package host

import (
	"context"
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

// TestEveryModeHasARuleReader: NodeRules reads every kube-proxy mode
// sim/dataplane names, and refuses another.
func TestEveryModeHasARuleReader(t *testing.T) {
	for _, md := range dataplane.Modes() {
		if ruleReaders[md] == nil {
			t.Errorf("mode %s has no rule reader in ruleReaders", md)
		}
	}
	if len(ruleReaders) != len(dataplane.Modes()) {
		t.Errorf("ruleReaders has %d entries, sim/dataplane names %d modes", len(ruleReaders), len(dataplane.Modes()))
	}
	if _, err := NodeRules(context.Background(), "userspace", model.IPv4, ""); err == nil {
		t.Error("NodeRules of an unknown mode: no error")
	}
}
