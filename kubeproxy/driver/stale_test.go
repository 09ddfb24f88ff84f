package driver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// TestStaleChainsWaitForNoClock: a Service's chains, flushed when it is
// deleted, are flushed again by the next sync and never deleted, however
// long the machine takes between the syncs (kube-proxy's own rule is "after
// a second of wall time"; CI once starved a test that long and the same
// steps wrote another transaction).
func TestStaleChainsWaitForNoClock(t *testing.T) {
	before := twoEndpoints()
	gone := &model.Model{Cluster: before.Cluster, Services: model.Slice{}}
	req, err := kube.NewRequest(kube.ModeNFTables, render.Config{}, before, gone, gone)
	if err != nil {
		t.Fatal(err)
	}
	var payloads []string
	err = Run(context.Background(), req, true, nil, func(s kube.Sync) error {
		if s.Error != "" {
			t.Fatalf("sync %d: %s", s.Index, s.Error)
		}
		payloads = append(payloads, s.Payload)
		time.Sleep(1100 * time.Millisecond) // past kube-proxy's one second
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(payloads) != 3 {
		t.Fatalf("%d syncs, want 3", len(payloads))
	}
	const chain = "service-"
	for i, p := range payloads[1:] {
		if !strings.Contains(p, "flush chain ip kube-proxy "+chain) {
			t.Errorf("sync %d does not flush the deleted Service's chains:\n%s", i+1, p)
		}
		if strings.Contains(p, "delete chain") {
			t.Errorf("sync %d deletes a chain after a second of wall time:\n%s", i+1, p)
		}
	}
}
