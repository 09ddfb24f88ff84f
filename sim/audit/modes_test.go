package audit

import (
	"errors"
	"testing"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
)

// TestEveryModeHasAnAuditEntry: each kube-proxy mode sim/dataplane names
// has a complete entry in auditModes, whose kind analyze loads; an
// unknown mode is ErrInput.
func TestEveryModeHasAnAuditEntry(t *testing.T) {
	for _, md := range dataplane.Modes() {
		e, ok := auditModes[md]
		if !ok || e.kind == "" || e.facts == nil {
			t.Errorf("mode %s has no complete entry in auditModes (kind, facts)", md)
		}
	}
	if len(auditModes) != len(dataplane.Modes()) {
		t.Errorf("auditModes has %d entries, sim/dataplane names %d modes", len(auditModes), len(dataplane.Modes()))
	}
	if _, err := auditModeOf("userspace"); !errors.Is(err, ErrInput) {
		t.Errorf("an unknown mode: %v, want ErrInput", err)
	}
	if err := checkDump("userspace", &analyze.Dump{}); !errors.Is(err, ErrInput) {
		t.Errorf("checkDump of an unknown mode: %v, want ErrInput", err)
	}
}
