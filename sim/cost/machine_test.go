package cost

import (
	"strings"
	"testing"
)

// TestMachineCompare: another CPU model is another machine; a kernel,
// tools or xt_recent buckets of their own are notes; what one side did not
// record is no difference.
func TestMachineCompare(t *testing.T) {
	cal := Machine{CPUModel: "AMD EPYC", CPUs: 2, Kernel: "6.18.44 #1", Tools: map[string]string{"nft": "v1.0.6"}, RecentHashBuckets: 128}
	tests := []struct {
		name  string
		here  Machine
		other bool
		notes []string
	}{
		{"same", cal, false, nil},
		{"other CPU", Machine{CPUModel: "Intel Xeon", CPUs: 2}, true, []string{`CPU "AMD EPYC", this machine "Intel Xeon"`}},
		{"other kernel and tool", Machine{CPUModel: "AMD EPYC", Kernel: "6.19.1 #2", Tools: map[string]string{"nft": "v1.1.1"}}, false,
			[]string{"kernel 6.18.44, this machine 6.19.1", `nft "v1.0.6", this machine "v1.1.1"`}},
		{"other xt_recent buckets", Machine{CPUModel: "AMD EPYC", RecentHashBuckets: 1024}, false, []string{"xt_recent ip_list_hash_size 128, this machine 1024"}},
		{"buckets not read here", Machine{CPUModel: "AMD EPYC"}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cal.Compare(tt.here)
			if got.Other != tt.other || len(got.Notes) != len(tt.notes) {
				t.Fatalf("Compare = %+v; want other %v and notes %q", got, tt.other, tt.notes)
			}
			for i, n := range tt.notes {
				if !strings.Contains(got.Notes[i], n) {
					t.Errorf("note %d %q; want it to say %q", i, got.Notes[i], n)
				}
			}
		})
	}
}
