package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/cost"
)

// planCalibrationMachine is the machine the test calibration was recorded on.
var planCalibrationMachine = cost.Machine{CPUModel: "Intel(R) Xeon(R) Processor", CPUs: 2, Kernel: "6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0",
	Tools: map[string]string{"iptables-legacy": "iptables v1.8.9 (legacy)", "iptables-nft": "iptables v1.8.9 (nf_tables)",
		"ipvsadm": "not installed", "nft": "nftables v1.0.6 (Lester Gooch #5)"}}

// The plan tests run "on" the test calibration's machine, whatever machine
// runs them, so that their output does not depend on it.
func init() {
	planHere = func() *cost.Machine { m := planCalibrationMachine; return &m }
}

// withPlanMachine makes plan run on m for one test.
func withPlanMachine(t *testing.T, m *cost.Machine) {
	saved := planHere
	planHere = func() *cost.Machine { return m }
	t.Cleanup(func() { planHere = saved })
}

// TestPlanRefusesOtherMachine: a calibration from another CPU model is a
// usage error unless --allow-other-machine, which says it extrapolates; the
// embedded default only warns; an unknown machine is said to be unknown.
func TestPlanRefusesOtherMachine(t *testing.T) {
	other := &cost.Machine{CPUModel: "AMD EPYC", CPUs: 2}
	base := []string{"plan", "--services", "1000", "--endpoints-per-service", "1"}
	tests := []struct {
		name  string
		here  *cost.Machine
		args  []string
		code  int
		want  string
		where func(stdout, stderr string) string
	}{
		{"other machine refused", other, []string{"--calibration", planCalibration}, 2, "another machine", stderrOf},
		{"other machine allowed", other, []string{"--calibration", planCalibration, "--allow-other-machine"}, 0, "extrapolating across machines", stdoutOf},
		{"default on another CPU warns", &planCalibrationMachine, nil, 0, "extrapolating across machines", stdoutOf},
		{"default labelled", &cost.Machine{CPUModel: "Intel(R) Xeon(R) Processor"}, nil, 0, "machine type: svclab's reference machine type", stdoutOf},
		{"same machine is quiet", &planCalibrationMachine, []string{"--calibration", planCalibration}, 0, "calibration: ../../sim/cost/testdata/sweep1", stdoutOf},
		{"unknown machine", nil, []string{"--calibration", planCalibration}, 0, "this machine's identity is unknown", stdoutOf},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withPlanMachine(t, tt.here)
			var stdout, stderr bytes.Buffer
			code := dispatch(append(append([]string(nil), base...), tt.args...), &stdout, &stderr)
			if code != tt.code || !strings.Contains(tt.where(stdout.String(), stderr.String()), tt.want) {
				t.Errorf("exit %d (want %d), want %q in:\n%s\n%s", code, tt.code, tt.want, stdout.String(), stderr.String())
			}
		})
	}
}

func stdoutOf(stdout, _ string) string { return stdout }
func stderrOf(_, stderr string) string { return stderr }
