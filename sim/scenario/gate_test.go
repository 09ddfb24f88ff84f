package scenario

import (
	"slices"
	"strings"
	"testing"
)

func TestGate(t *testing.T) {
	sweep := "sweep: {services: [10, 100]}\n"
	tests := []struct {
		name    string
		yaml    string
		want    []GateRule
		wantErr string
	}{
		{"none", sweep, nil, ""},
		{"defaults", sweep + "gate: [{metric: p10_us}]\n", []GateRule{{Metric: "p10_us", Threshold: DefaultGateThreshold}}, ""},
		{"threshold and services", sweep + "gate: [{metric: sync_full_s, threshold: 5, services: 10}, {metric: p10_us, threshold: 2.5}]\n",
			[]GateRule{{Metric: "sync_full_s", Threshold: 5, Services: 10}, {Metric: "p10_us", Threshold: 2.5}}, ""},
		{"unknown metric", sweep + "gate: [{metric: p42_us}]\n", nil, `gate[0].metric: "p42_us" is not a sweep metric`},
		{"fairness-only metric", sweep + "gate: [{metric: jain}]\n", nil, "is not a sweep metric"},
		{"zero threshold", sweep + "gate: [{metric: p10_us, threshold: 0}]\n", nil, "gate[0].threshold: 0 is out of range"},
		{"services not swept", sweep + "gate: [{metric: p10_us, services: 50}]\n", nil, "gate[0].services: 50 is not one of sweep.services"},
		{"twice", sweep + "gate: [{metric: p10_us}, {metric: p10_us, threshold: 3}]\n", nil, "gated twice"},
		{"no sweep", "gate: [{metric: p10_us}]\n", nil, "gate: needs a sweep"},
		{"too many", sweep + "gate: [" + strings.Repeat("{metric: p10_us}, ", MaxGateRules) + "{metric: p50_us}]\n", nil, "more than 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("s.yaml", []byte(base+tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sc.Gate, tt.want) {
				t.Errorf("Gate = %+v, want %+v", sc.Gate, tt.want)
			}
		})
	}
}
