package compare

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestWriteBench checks the export against golden files and reads it back
// with benchstat's own parser (golang.org/x/perf/benchfmt).
func TestWriteBench(t *testing.T) {
	tests := []struct {
		run         string
		golden      string
		wantResults int
		wantName    string
		wantUnits   []string
	}{
		{"run1", "bench-run1.golden.txt", 20, "Sweep/dataplane=nftables/services=20000/position=last",
			[]string{"p50-µs", "p90-µs", "p99-µs", "cpu-µs/conn", "conn/s", "sync-incremental-s"}},
		{"split2", "bench-split2.golden.txt", 3, "Fairness/dataplane=iptables-legacy/service=demo.web:http",
			[]string{"chi2-p", "jain", "p50-µs", "p99-µs", "conn/s"}},
	}
	for _, tt := range tests {
		t.Run(tt.run, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteBench(&buf, loadTestRun(t, tt.run)); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.golden, buf.Bytes())
			reader := benchfmt.NewReader(bytes.NewReader(buf.Bytes()), tt.golden)
			n := 0
			for reader.Scan() {
				switch rec := reader.Result().(type) {
				case *benchfmt.SyntaxError:
					t.Errorf("benchfmt: %v", rec)
				case *benchfmt.Result:
					if n == 0 {
						checkFirstResult(t, rec, tt.wantName, tt.wantUnits)
					}
					n++
				}
			}
			if n != tt.wantResults {
				t.Errorf("benchfmt read %d results, want %d", n, tt.wantResults)
			}
			if got := reader.Units(); len(got) < len(tt.wantUnits) {
				t.Errorf("benchfmt read %d unit metadata lines, want at least %d", len(got), len(tt.wantUnits))
			}
		})
	}
}

func checkFirstResult(t *testing.T, r *benchfmt.Result, wantName string, wantUnits []string) {
	t.Helper()
	if string(r.Name) != wantName || r.Iters != 1 {
		t.Errorf("first result %q × %d, want %q × 1", r.Name, r.Iters, wantName)
	}
	if got := string(r.GetConfig("pkg")); !strings.HasPrefix(got, "svclab/") {
		t.Errorf("pkg %q", got)
	}
	for _, u := range wantUnits {
		if _, ok := r.Value(u); !ok {
			t.Errorf("first result has no %s value", u)
		}
	}
}
