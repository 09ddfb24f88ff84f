package runner_test

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labfake"
	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/sim/results"
)

// TestSweepLookupProbeLoadsOnceOnFakes: sweep.lookupProbe loads a
// map-lookup dataplane's ruleset once (its syncs not timed, no change
// applied) and probes the uniform position in every repetition, while the
// points reload (syncEachRepetition); its one load's kernel memory is not
// recorded (a first load's is not a sample of loads), the points' reloads'
// is, and a rule walk (iptables-legacy) gets no lookup probe.
func TestSweepLookupProbeLoadsOnceOnFakes(t *testing.T) {
	const mb = 1_000_000
	readings := []procstat.MemoryReading{{Machine: 100 * mb, HasOwn: true}, {Machine: 105 * mb, Own: 5 * mb, HasOwn: true}} // every load: 5 MB
	text := strings.Replace(fakeSweep, "services: [3, 200, 400]", "services: [200]", 1)
	text = strings.Replace(text, "positions: [first, last]", "positions: [last, uniform]", 1) + "  syncEachRepetition: true\n  lookupProbe: [1000]\n"
	out, m, err := runOn(t, t.Context(), loadScenarioText(t, text), &labfake.Machine{Seed: 7, KernelMemoryReadings: readings})
	if err != nil {
		t.Fatal(err)
	}
	recs := records(t, out.Dir)
	for _, r := range recs[results.TypePoint] {
		if r.Point.KernelMemBytes != 5*mb {
			t.Errorf("point at %d services, repetition %d: kernel memory %d, want each load's 5 MB", r.Point.Services, r.Point.Repetition, r.Point.KernelMemBytes)
		}
	}
	probes := recs[results.TypeSyncProbe]
	if len(probes) != 2 {
		t.Fatalf("%d sync-probe records, want nftables' lookup probe in each of 2 repetitions: %+v", len(probes), probes)
	}
	for _, r := range probes {
		p := r.Point
		if p.Dataplane != "nftables" || p.Services != 1000 || p.Position != "uniform" || p.Connections != 50 || p.P50us <= 0 {
			t.Errorf("lookup probe %+v: want nftables' 1,000 Services probed at the uniform position with 50 connections", p)
		}
		if p.SyncFullS != 0 || p.SyncIncrementalS != 0 || p.KernelMemBytes != 0 {
			t.Errorf("repetition %d: full sync %v s, incremental %v s, kernel memory %d; want none recorded",
				p.Repetition, p.SyncFullS, p.SyncIncrementalS, p.KernelMemBytes)
		}
	}
	once := 0
	for _, l := range m.Labs {
		if d := l.Active(); d != nil && d.Syncs == 1 && d.Changes == 0 {
			once++
		}
	}
	if once != 1 {
		t.Errorf("%d labs loaded once with no change applied, want the lookup probe's alone", once)
	}
}
