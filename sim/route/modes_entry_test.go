package route

import (
	"bytes"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
)

// TestEveryModeHasAnEntry: each kube-proxy mode sim/dataplane names has a
// complete row in modes, so rendering, loading and loading kube-proxy's
// own sync work for it; an unknown mode is refused by each.
func TestEveryModeHasAnEntry(t *testing.T) {
	for _, md := range Modes() {
		e, ok := modes[md]
		if !ok || e.render == nil || e.load == nil || e.loadSync == nil || e.size == nil {
			t.Errorf("mode %s has no complete entry in modes (render, load, loadSync, size)", md)
		}
	}
	if len(modes) != len(Modes()) {
		t.Errorf("modes has %d entries, sim/dataplane names %d modes", len(modes), len(Modes()))
	}
	m := &model.Model{Cluster: model.DefaultCluster()}
	if _, err := Render(&bytes.Buffer{}, m, Config{Mode: "userspace"}); err == nil {
		t.Error("Render of an unknown mode: no error")
	}
	if _, err := Rules(m, Config{Mode: "userspace"}); err == nil {
		t.Error("Rules of an unknown mode: no error")
	}
	if _, err := LoadSync(m, Config{Mode: "userspace"}, kube.Sync{}); err == nil {
		t.Error("LoadSync of an unknown mode: no error")
	}
	if _, err := SyncPayload("userspace", kube.Sync{}); err == nil {
		t.Error("SyncPayload of an unknown mode: no error")
	}
	if _, err := PayloadSize("userspace", 1, 1); err == nil {
		t.Error("PayloadSize of an unknown mode: no error")
	}
}
