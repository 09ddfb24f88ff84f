package cost

import (
	"strings"
	"testing"
)

func TestParseBudget(t *testing.T) {
	tests := []struct {
		in      string
		figure  string
		limit   float64
		wantErr string
	}{
		{"p99=500us", "p99", 500, ""},
		{"p50=0.2ms", "p50", 200, ""},
		{"p99=750", "p99", 750, ""},
		{"sync=10s", "sync", 10, ""},
		{"npl99=1m", "npl99", 60, ""},
		{"incremental=2.5", "incremental", 2.5, ""},
		{"p95=1ms", "", 0, "FIGURE=LIMIT"},
		{"sync", "", 0, "FIGURE=LIMIT"},
		{"sync=soon", "", 0, "neither a number nor a duration"},
		{"sync=-1s", "", 0, "limit > 0"},
	}
	for _, tt := range tests {
		b, err := ParseBudget(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseBudget(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || b.Figure != tt.figure || !near(b.Limit, tt.limit, 1e-9) {
			t.Errorf("ParseBudget(%q) = %+v, %v; want %s %v", tt.in, b, err, tt.figure, tt.limit)
		}
	}
}

// TestLargestWithinBudget: the size the bisection finds is within the
// budget and one more service is not.
func TestLargestWithinBudget(t *testing.T) {
	m, err := CalibrateDefault(Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{EndpointsPerService: 1, Services: 1, Dataplane: "iptables-nft", Position: PositionLast}
	b, _ := ParseBudget("p50=500us")
	rs, err := m.Largest(q, b)
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v %v", rs, err)
	}
	n := rs[0].Services
	if n < 1000 || n >= MaxQueryServices {
		t.Fatalf("largest %d services: want a bounded size", n)
	}
	dm, _ := m.Dataplane("iptables-nft")
	for _, tt := range []struct {
		n      int
		within bool
	}{{n, true}, {n + 1, false}} {
		p := m.predictOne(dm, q.at(tt.n), q.sizeAt(dm.Mode, tt.n))
		if got := p.P50us.Total.Value <= 500; got != tt.within {
			t.Errorf("%d services: p50 %v within 500 µs = %v, want %v", tt.n, p.P50us.Total.Value, got, tt.within)
		}
	}
}

// TestProgrammingLatency: without churn a change waits only for its sync.
// With a change always pending, kube-proxy's runner waits --min-sync-period
// T after each sync's end, so a sync carries the changes of the last sync
// and cooldown (W = s + T) and their latency is uniform over [s, s+W]; a
// batch cost c per further change makes s grow with the λ·W changes.
func TestProgrammingLatency(t *testing.T) {
	batched := func(churn, minSync, s, c float64) (lo, width float64) {
		w := (minSync + s - c) / (1 - churn*c) // W = T + s + (λW-1)c
		return s + (churn*w-1)*c, w
	}
	s3, w3 := batched(100, 1, 0.2, 0.001)
	tests := []struct {
		name                 string
		churn, minSync, s, c float64
		wantP50, wantP99     float64
		wantBehind           bool
	}{
		{"idle loop", 0, 1, 0.2, 0, 0.2, 0.2, false},
		{"always pending, min period dominates", 100, 1, 0.2, 0, 0.2 + 0.5*1.2, 0.2 + 0.99*1.2, false},
		{"always pending, sync dominates", 100, 1, 4, 0, 4 + 0.5*5, 4 + 0.99*5, false},
		{"always pending, batches cost", 100, 1, 0.2, 0.001, s3 + 0.5*w3, s3 + 0.99*w3, false},
		{"a sync cannot keep up", 100, 1, 0.2, 0.01, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var perChange *Estimate
			if tt.c > 0 {
				c := exact(tt.c)
				perChange = &c
			}
			p := NewProgrammingLatency(tt.churn, tt.minSync, exact(tt.s), perChange, nil)
			if p.FallsBehind != tt.wantBehind {
				t.Fatalf("falls behind = %v, want %v", p.FallsBehind, tt.wantBehind)
			}
			if tt.wantBehind {
				return
			}
			if !near(p.P50s.Value, tt.wantP50, 0.02) || !near(p.P99s.Value, tt.wantP99, 0.02) {
				t.Errorf("p50 %v p99 %v, want %v %v", p.P50s.Value, p.P99s.Value, tt.wantP50, tt.wantP99)
			}
		})
	}
}

// TestProgrammingLatencyHourlyFullSync: a full sync of F seconds once an
// hour delays the changes that arrive during it, about F/3600 of them.
func TestProgrammingLatencyHourlyFullSync(t *testing.T) {
	full := &SyncPrediction{Seconds: exact(120)}
	without := NewProgrammingLatency(1, 1, exact(0.1), nil, nil)
	with := NewProgrammingLatency(1, 1, exact(0.1), nil, full)
	if with.P50s.Value > without.P50s.Value*1.05 {
		t.Errorf("p50 %v with a 120 s hourly sync, %v without: want about the same", with.P50s.Value, without.P50s.Value)
	}
	if with.P99s.Value < 10*without.P99s.Value {
		t.Errorf("p99 %v with a 120 s hourly sync (3.3%% of the hour), %v without: want it inside the full sync", with.P99s.Value, without.P99s.Value)
	}
}
