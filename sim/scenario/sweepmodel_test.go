package scenario

import (
	"testing"

	"github.com/svclab/svclab/sim/model"
)

func TestSweepModelPlacesTargets(t *testing.T) {
	sc, err := Parse("t", []byte("sweep: {services: [10]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ n, first, middle, last int }{{3, 0, 1, 2}, {10, 0, 4, 9}, {1001, 0, 500, 1000}}
	for _, tt := range tests {
		m, _, err := sc.SweepModel(tt.n, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if m.Services.Len() != tt.n {
			t.Fatalf("N=%d: model has %d services", tt.n, m.Services.Len())
		}
		for name, want := range map[string]int{"target-first": tt.first, "target-middle": tt.middle, "target-last": tt.last} {
			if got := model.IndexOf(m.Services, name); got != want {
				t.Errorf("N=%d: %s at %d, want %d", tt.n, name, got, want)
			}
		}
	}
}

// TestSweepCreationsAreNewServices: the services a batch of Service
// creations adds share no name or ClusterIP with the point's own, nor
// with each other, and are the same on every call.
func TestSweepCreationsAreNewServices(t *testing.T) {
	sc, err := Parse("t", []byte("sweep: {services: [10]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 1000} {
		m, _, err := sc.SweepModel(n, 1, 5)
		if err != nil {
			t.Fatal(err)
		}
		created, err := sc.SweepCreations(n, 1, 5, 100)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := sc.SweepCreations(n, 1, 5, 100)
		names, ips := map[string]bool{}, map[string]bool{}
		for i := range m.Services.Len() {
			s := m.Services.At(i)
			names[s.Namespace+"/"+s.Name], ips[s.ClusterIP.String()] = true, true
		}
		for i, s := range created {
			if names[s.Namespace+"/"+s.Name] || ips[s.ClusterIP.String()] || len(s.Endpoints) != 1 {
				t.Fatalf("N=%d: created service %d (%s/%s, %s, %d endpoints) is not a new service with one endpoint", n, i, s.Namespace, s.Name, s.ClusterIP, len(s.Endpoints))
			}
			if again[i].Name != s.Name || again[i].ClusterIP != s.ClusterIP {
				t.Fatalf("N=%d: created service %d differs between calls", n, i)
			}
			names[s.Namespace+"/"+s.Name], ips[s.ClusterIP.String()] = true, true
		}
	}
}
