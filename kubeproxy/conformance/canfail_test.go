package conformance

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendipt "github.com/svclab/svclab/sim/render/iptables"
)

// TestSuiteCanFail checks that the comparison sees a wrong native
// renderer: with masquerade-all switched on natively (kube-proxy runs
// without it) the first cases must differ.
func TestSuiteCanFail(t *testing.T) {
	wrong := func(ms []*model.Model, flags render.Flags, kp []kube.Sync) (string, error) {
		flags.MasqueradeAll = true
		var buf bytes.Buffer
		if _, err := rendipt.Render(&buf, ms[0], iptablesOptions(flags)); err != nil {
			return "", err
		}
		d, err := diffRestore(kp[0].Payload, buf.String())
		return d, err
	}
	for seed := range uint64(20) {
		tc := Generate(seed, 0)
		if len(tc.Services) == 0 {
			continue
		}
		d, _, err := check(kube.ModeIPTables, wrong, tc)
		if err != nil {
			t.Fatal(err)
		}
		if d == "" {
			t.Fatalf("case %d: a native renderer with --masquerade-all compared equal to kube-proxy", seed)
		}
		small, _ := shrink(kube.ModeIPTables, wrong, tc, d)
		if n := len(small.Services); n != 1 {
			t.Errorf("case %d shrank to %d services, want 1:\n%s", seed, n, describeCase(small))
		}
		return
	}
	t.Fatal(fmt.Errorf("no case with services among the first 20"))
}
