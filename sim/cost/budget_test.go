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

// TestProgrammingLatency: without churn a change waits only for its sync;
// with a change always pending it waits for the next cycle as well.
func TestProgrammingLatency(t *testing.T) {
	tests := []struct {
		name              string
		churn, minSync, s float64
		wantP50, wantP99  float64
	}{
		{"idle loop", 0, 1, 0.2, 0.2, 0.2},
		{"always pending, min period dominates", 100, 1, 0.2, 0.2 + 0.5, 0.2 + 0.99},
		{"always pending, sync dominates", 100, 1, 4, 4 + 2, 4 + 0.99*4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewProgrammingLatency(tt.churn, tt.minSync, exact(tt.s), nil)
			if !near(p.P50s.Value, tt.wantP50, 0.01) || !near(p.P99s.Value, tt.wantP99, 0.01) {
				t.Errorf("p50 %v p99 %v, want %v %v", p.P50s.Value, p.P99s.Value, tt.wantP50, tt.wantP99)
			}
		})
	}
}
