package results

import (
	"strings"
	"testing"
)

func fairnessRecord(dp, svc string, counts ...uint64) Record {
	f := &FairnessRun{Dataplane: dp, Service: svc}
	for _, c := range counts {
		f.Endpoints = append(f.Endpoints, Endpoint{Count: c})
	}
	return Record{Schema: SchemaVersion, Type: TypeFairness, Fairness: f}
}

func pointRecord(dp string, n int, pos string, rep int, p50 float64) Record {
	return Record{Schema: SchemaVersion, Type: TypePoint, Point: &Point{Dataplane: dp, Services: n, Position: pos, Repetition: rep, P50us: p50}}
}

// droppedRecord is a fairness record of traffic the rules promise to
// drop: conns connections sent, none served.
func droppedRecord(conns int) Record {
	r := fairnessRecord("iptables-nft", "demo/web:http", 0, 0)
	r.Fairness.ExpectDropped, r.Fairness.Connections, r.Fairness.Errors = true, conns, conns
	return r
}

// deadlinePlan is plan with its first repetition required, the rest
// optional (a sweep with a deadline).
func deadlinePlan(plan *Plan) *Plan {
	p := *plan
	p.RequiredRepetitions = 1
	return &p
}

// TestCheckPlan (issue 10 point 4): complete only when every planned
// measurement was made and measured something.
func TestCheckPlan(t *testing.T) {
	plan := &Plan{
		Fairness: []PlannedFairness{{"iptables-nft", "demo/web:http"}},
		Points:   []PlannedPoint{{"nftables", 1000, "last", 1}, {"nftables", 1000, "last", 2}},
	}
	all := []Record{fairnessRecord("iptables-nft", "demo/web:http", 99, 101), pointRecord("nftables", 1000, "last", 1, 50), pointRecord("nftables", 1000, "last", 2, 51)}
	tests := []struct {
		name     string
		plan     *Plan
		records  []Record
		complete bool
		made     int
		missing  string
	}{
		{"everything made", plan, all, true, 3, ""},
		{"records in another order, one twice", plan, []Record{all[2], all[1], all[0], all[1]}, true, 3, ""},
		{"a repetition missing", plan, all[:2], false, 2, "point nftables/1000/last repetition 2"},
		{"topology failed: nothing recorded", plan, nil, false, 0, "fairness iptables-nft demo/web:http"},
		{"no ready endpoint: nothing served", plan, []Record{fairnessRecord("iptables-nft", "demo/web:http", 0, 0), all[1], all[2]}, false, 2, "fairness"},
		{"traffic the rules drop, dropped", plan, []Record{droppedRecord(20), all[1], all[2]}, true, 3, ""},
		{"traffic the rules drop, none sent", plan, []Record{droppedRecord(0), all[1], all[2]}, false, 2, "fairness"},
		{"every probe failed", plan, []Record{all[0], pointRecord("nftables", 1000, "last", 1, 0), all[2]}, false, 2, "repetition 1"},
		{"a deadline's optional repetition left out", deadlinePlan(plan), all[:2], true, 2, ""},
		{"a deadline's optional repetition made", deadlinePlan(plan), all, true, 3, ""},
		{"a deadline's required repetition missing", deadlinePlan(plan), []Record{all[0], all[2]}, false, 2, "repetition 1"},
		{"nothing planned", nil, all, false, 0, ""},
		{"empty plan", &Plan{}, all, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := CheckPlan(tt.plan, tt.records)
			if c.Complete() != tt.complete || c.Made != tt.made || !strings.Contains(strings.Join(c.Missing, "; "), tt.missing) {
				t.Fatalf("got %+v (complete %v), want complete %v, %d made, missing %q", c, c.Complete(), tt.complete, tt.made, tt.missing)
			}
			var s Summary
			s.SetCompleteness(c)
			if s.Complete != tt.complete || (!tt.complete && len(s.Warnings) == 0) {
				t.Fatalf("summary %+v", s)
			}
		})
	}
}

func TestPlanOf(t *testing.T) {
	plan := &Plan{Points: []PlannedPoint{{"nftables", 1, "last", 1}}}
	recs := []Record{{Type: TypeMeta, Meta: &Meta{}}, {Type: TypePlan, Plan: plan}}
	if PlanOf(recs) != plan || PlanOf(recs[:1]) != nil {
		t.Fatal("PlanOf")
	}
}
