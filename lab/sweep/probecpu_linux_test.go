package sweep

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/traffic"
)

func TestCheckProbeCPU(t *testing.T) {
	allowed, err := traffic.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	outside := allowed[len(allowed)-1] + 1
	tests := []struct {
		name    string
		cpu     *int
		wantErr string
	}{
		{"not pinned", nil, ""},
		{"an allowed CPU", &allowed[0], ""},
		{"a CPU the run may not use", &outside, "is not one this run may use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckProbeCPU(tt.cpu)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("CheckProbeCPU: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("CheckProbeCPU: %v, want an error saying %q", err, tt.wantErr)
			}
		})
	}
}
