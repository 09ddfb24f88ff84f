package cost

import (
	"slices"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/scenario"
)

// TestCalibrationSweepIsAScenario: the sweep calibrate writes loads as a
// scenario, and its repetitions follow the duration, which is its budget
// unless the repetitions are given.
func TestCalibrationSweepIsAScenario(t *testing.T) {
	tests := []struct {
		duration   time.Duration
		reps       int
		wantReps   int
		wantBudget time.Duration
	}{
		{DefaultCalibrationDuration, 0, 8, DefaultCalibrationDuration},
		{10 * time.Minute, 0, 36, 10 * time.Minute},
		{time.Minute, 0, 3, time.Minute},
		{time.Minute, 7, 7, 0},
		{time.Hour, 0, 60, time.Hour},
	}
	for _, tt := range tests {
		c, err := NewCalibrationSweep(tt.duration, tt.reps, nil, nil, Probes{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Repetitions != tt.wantReps || c.Budget != tt.wantBudget {
			t.Errorf("%v, reps %d: %d repetitions, budget %v; want %d, %v", tt.duration, tt.reps, c.Repetitions, c.Budget, tt.wantReps, tt.wantBudget)
		}
		sc, err := scenario.Parse("calibration.yaml", c.Scenario())
		if err != nil {
			t.Fatalf("%v\n%s", err, c.Scenario())
		}
		if sc.Sweep == nil || len(sc.Sweep.Services) != len(DefaultCalibrationServices) || len(sc.Dataplanes()) != 3 ||
			!slices.Equal(sc.Sweep.WalkProbe, DefaultCalibrationWalkProbe) || sc.Sweep.WalkProbeReload || !slices.Equal(sc.Sweep.SyncProbe, DefaultCalibrationSyncProbe) ||
			sc.Sweep.SyncLimit["iptables-nft"] != 5000 || len(sc.Sweep.SyncLimit) != 1 ||
			sc.Sweep.IncrementalBatch != DefaultCalibrationBatch || !slices.Equal(sc.Sweep.LookupProbe, DefaultCalibrationLookupProbe) {
			t.Errorf("scenario %+v", sc.Sweep)
		}
	}
	// Walk probes: none asked for, or no rule-walk dataplane, give none;
	// no sync probes asked for: none, and no sync limit.
	for _, tt := range []struct {
		dataplanes []string
		probes     []int
	}{{nil, []int{}}, {[]string{"nftables"}, nil}} {
		c, err := NewCalibrationSweep(time.Minute, 0, tt.dataplanes, nil, Probes{Walk: tt.probes, Sync: []int{}})
		if err != nil {
			t.Fatal(err)
		}
		if sc, err := scenario.Parse("calibration.yaml", c.Scenario()); err != nil || len(sc.Sweep.WalkProbe) != 0 || len(sc.Sweep.SyncProbe) != 0 || len(sc.Sweep.SyncLimit) != 0 {
			t.Errorf("dataplanes %v, walk probes %v: scenario error %v, probes %v", tt.dataplanes, tt.probes, err, c.WalkProbe)
		}
	}
	if _, err := NewCalibrationSweep(0, 0, nil, nil, Probes{}); err == nil {
		t.Error("no duration and no repetitions: want an error")
	}
	// plan calibrate --batch-kind services: the batch creates Services.
	c, err := NewCalibrationSweep(time.Minute, 0, nil, nil, Probes{})
	if err != nil {
		t.Fatal(err)
	}
	c.BatchKind = scenario.BatchServices
	if sc, err := scenario.Parse("calibration.yaml", c.Scenario()); err != nil || sc.Sweep.IncrementalBatchKind != scenario.BatchServices || sc.Sweep.IncrementalBatch != DefaultCalibrationBatch {
		t.Errorf("a batch of Service creations: scenario error %v, sweep %+v", err, sc.Sweep)
	}
	// plan calibrate --walk-probe-reload: the probes reload every repetition.
	c, err = NewCalibrationSweep(time.Minute, 0, nil, nil, Probes{ReloadWalk: true})
	if err != nil {
		t.Fatal(err)
	}
	if sc, err := scenario.Parse("calibration.yaml", c.Scenario()); err != nil || !sc.Sweep.WalkProbeReload || len(sc.Sweep.WalkProbe) == 0 {
		t.Errorf("walk probes reloaded: scenario error %v, sweep %+v", err, sc.Sweep)
	}
	if _, err := NewCalibrationSweep(time.Minute, 0, []string{"ebpf"}, nil, Probes{}); err == nil {
		t.Error("a dataplane the model does not know: want an error")
	}
}

// TestCalibrationLookupProbes: the default sweep loads nftables' lookup
// probes once; none are asked for, or no dataplane looks services up in a
// map: none in the scenario.
func TestCalibrationLookupProbes(t *testing.T) {
	tests := []struct {
		name       string
		dataplanes []string
		lookup     []int
		want       []int
	}{
		{"default", nil, nil, DefaultCalibrationLookupProbe},
		{"given", []string{"nftables"}, []int{20000, 60000}, []int{20000, 60000}},
		{"none", nil, []int{}, nil},
		{"no map lookup", []string{"iptables-legacy"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCalibrationSweep(time.Minute, 0, tt.dataplanes, nil, Probes{Lookup: tt.lookup})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenario.Parse("calibration.yaml", c.Scenario())
			if err != nil {
				t.Fatalf("%v\n%s", err, c.Scenario())
			}
			if !slices.Equal(sc.Sweep.LookupProbe, tt.want) {
				t.Errorf("lookup probes %v, want %v", sc.Sweep.LookupProbe, tt.want)
			}
		})
	}
}

// TestCalibrationAddrTypeProbes: by default the smallest walk probe is also
// measured with addrtype rules; a size that is not a walk probe's is
// refused; none without walk probes or when asked for none.
func TestCalibrationAddrTypeProbes(t *testing.T) {
	tests := []struct {
		name       string
		dataplanes []string
		probes     Probes
		want       []int
		wantErr    bool
	}{
		{"default", nil, Probes{}, []int{2500}, false},
		{"the smallest walk probe", nil, Probes{Walk: []int{20000, 5000, 80000}}, []int{5000}, false},
		{"given", nil, Probes{Walk: []int{5000, 10000}, AddrType: []int{10000}}, []int{10000}, false},
		{"none asked", nil, Probes{AddrType: []int{}}, nil, false},
		{"no walk probes", nil, Probes{Walk: []int{}}, nil, false},
		{"nothing walks rules", []string{"nftables"}, Probes{}, nil, false},
		{"not a walk probe's size", nil, Probes{Walk: []int{5000}, AddrType: []int{2500}}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCalibrationSweep(DefaultCalibrationDuration, 0, tt.dataplanes, nil, tt.probes)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %t", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if !slices.Equal(c.AddrTypeProbe, tt.want) {
				t.Errorf("addrtype probes %v, want %v", c.AddrTypeProbe, tt.want)
			}
			sc, err := scenario.Parse("calibration.yaml", c.Scenario())
			if err != nil {
				t.Fatalf("%v\n%s", err, c.Scenario())
			}
			if !slices.Equal(sc.Sweep.AddrTypeProbe, tt.want) {
				t.Errorf("the scenario's addrtype probes %v, want %v", sc.Sweep.AddrTypeProbe, tt.want)
			}
		})
	}
}

// TestCalibrationRecentProbe: the recent probe's lists reach the scenario
// as given; none without walk probes or when nothing walks rules; a count
// out of range is refused.
func TestCalibrationRecentProbe(t *testing.T) {
	tests := []struct {
		name       string
		dataplanes []string
		probes     Probes
		want       int
		wantErr    bool
	}{
		{"the CLI's default", nil, Probes{Recent: DefaultCalibrationRecentProbe}, DefaultCalibrationRecentProbe, false},
		{"none", nil, Probes{}, 0, false},
		{"no walk probes", nil, Probes{Walk: []int{}, Recent: 8000}, 0, false},
		{"nothing walks rules", []string{"nftables"}, Probes{Recent: 8000}, 0, false},
		{"negative", nil, Probes{Recent: -1}, 0, true},
		{"too many", nil, Probes{Recent: scenario.MaxRecentProbe + 1}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCalibrationSweep(DefaultCalibrationDuration, 0, tt.dataplanes, nil, tt.probes)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %t", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			sc, err := scenario.Parse("calibration.yaml", c.Scenario())
			if err != nil {
				t.Fatalf("%v\n%s", err, c.Scenario())
			}
			if c.RecentProbe != tt.want || sc.Sweep.RecentProbe != tt.want {
				t.Errorf("recent probe %d, the scenario's %d; want %d", c.RecentProbe, sc.Sweep.RecentProbe, tt.want)
			}
		})
	}
}
