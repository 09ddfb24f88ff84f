package scenario

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

func TestFairnessPaths(t *testing.T) {
	tests := []struct {
		name    string
		section string
		want    FairnessPaths
		wantErr string
	}{
		{"defaults", "fairness: {}\n", FairnessPaths{From: FromPod, Target: TargetClusterIP, Family: model.IPv4}, ""},
		{"clientOnNode is from node", "fairness: {clientOnNode: true}\n", FairnessPaths{From: FromNode, Target: TargetClusterIP}, ""},
		{"external nodePort", "fairness: {from: external, target: nodePort}\n", FairnessPaths{From: FromExternal, Target: TargetNodePort}, ""},
		{"outside range, LB, IPv6", "fairness: {from: external-outside-range, target: loadBalancer, family: IPv6}\n",
			FairnessPaths{From: FromExternalOutsideRange, Target: TargetLoadBalancer, Family: model.IPv6}, ""},
		{"unknown origin", "fairness: {from: internet}\n", FairnessPaths{}, `fairness.from: unknown from "internet"`},
		{"unknown target", "fairness: {target: ingress}\n", FairnessPaths{}, `fairness.target: unknown target "ingress"`},
		{"unknown family", "fairness: {family: ipv6}\n", FairnessPaths{}, `fairness.family: unknown family "ipv6"`},
		{"clientOnNode contradicts from", "fairness: {clientOnNode: true, from: external}\n", FairnessPaths{}, "fairness.clientOnNode"},
		{"node client is IPv4 only", "fairness: {from: node, family: IPv6}\n", FairnessPaths{}, "fairness.family"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse("s.yaml", []byte(base+tc.section))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc.Fairness.Paths != tc.want {
				t.Fatalf("paths = %+v, want %+v", sc.Fairness.Paths, tc.want)
			}
		})
	}
}
