package results

import (
	"strings"
	"testing"
)

func TestBesideWarning(t *testing.T) {
	b := BesideRun{Run: "svl-3aba", Kind: "test", PID: 42, FirstSeen: "2026-12-05T06:17:41Z", LastSeen: "2026-12-05T06:25:03Z"}
	for _, tt := range []struct {
		name   string
		beside []BesideRun
		want   []string
	}{
		{"none", nil, nil},
		{"one", []BesideRun{b}, []string{"run svl-c91a was measured", "svl-3aba (test, pid 42, 06:17:41-06:25:03 UTC)", "machine to itself"}},
		{"a time that is not RFC 3339 is kept", []BesideRun{{Run: "svl-x", Kind: "run", PID: 1, FirstSeen: "soon", LastSeen: "later"}}, []string{"svl-x (run, pid 1, soon-later UTC)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := BesideWarning("svl-c91a", tt.beside)
			if (got == "") != (tt.want == nil) {
				t.Fatalf("BesideWarning = %q, want empty: %t", got, tt.want == nil)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("BesideWarning = %q, want it to say %q", got, w)
				}
			}
		})
	}
}

func TestOutsideWarning(t *testing.T) {
	for _, tt := range []struct {
		name string
		load *OutsideLoad
		want []string
	}{
		{"not watched", nil, nil},
		{"quiet", &OutsideLoad{Seconds: 600, CPUs: 0.01, PeakCPUs: 0.2, StealCPUs: 0.001}, nil},
		{"a build all along", &OutsideLoad{Seconds: 600, CPUs: 0.9, PeakCPUs: 1.8, PeakAt: "2026-12-05T09:31:02Z"},
			[]string{"run svl-c91a was measured while other programs used 0.90 CPUs on average over 600 s (1.80 at most over one poll, ending 09:31:02 UTC)", "machine to itself"}},
		{"one burst", &OutsideLoad{Seconds: 600, CPUs: 0.02, PeakCPUs: 0.6, PeakAt: "2026-12-05T09:31:02Z"}, []string{"0.02 CPUs on average", "0.60 at most"}},
		{"steal alone", &OutsideLoad{Seconds: 600, StealCPUs: 0.3}, []string{"the hypervisor took 0.30 CPUs", "outside svclab's own processes"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := OutsideWarning("svl-c91a", tt.load)
			if (got == "") != (tt.want == nil) {
				t.Fatalf("OutsideWarning = %q, want empty: %t", got, tt.want == nil)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("OutsideWarning = %q, want it to say %q", got, w)
				}
			}
		})
	}
}

// TestSharingWarnings gives a summary's warnings for other svclab runs and
// load outside it, in that order, and none for a run alone.
func TestSharingWarnings(t *testing.T) {
	alone := Summary{Run: "svl-c91a", OutsideLoad: &OutsideLoad{Seconds: 60}}
	if got := alone.SharingWarnings(); got != nil {
		t.Errorf("a run alone: %q", got)
	}
	shared := Summary{Run: "svl-c91a", BesideRuns: []BesideRun{{Run: "svl-x", Kind: "run", PID: 1}}, OutsideLoad: &OutsideLoad{Seconds: 60, CPUs: 1}}
	got := shared.SharingWarnings()
	if len(got) != 2 || !strings.Contains(got[0], "svl-x") || !strings.Contains(got[1], "other programs used 1.00 CPUs") {
		t.Errorf("a shared run: %q", got)
	}
}

func TestPoolOutsideLoads(t *testing.T) {
	quiet := &OutsideLoad{Seconds: 30, CPUs: 0, PeakCPUs: 0.01, PeakAt: "2026-12-05T10:00:02Z"}
	busy := &OutsideLoad{Seconds: 10, CPUs: 1, PeakCPUs: 1.2, PeakAt: "2026-12-05T10:01:04Z", StealCPUs: 0.4}
	for _, tt := range []struct {
		name  string
		loads []*OutsideLoad
		want  *OutsideLoad
	}{
		{"none watched", []*OutsideLoad{nil, nil}, nil},
		{"one", []*OutsideLoad{quiet, nil}, quiet},
		{"weighted by span, highest poll", []*OutsideLoad{quiet, busy}, &OutsideLoad{Seconds: 40, CPUs: 0.25, PeakCPUs: 1.2, PeakAt: busy.PeakAt, StealCPUs: 0.1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := PoolOutsideLoads(tt.loads)
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("PoolOutsideLoads = %+v, want %+v", got, tt.want)
			}
		})
	}
}
