package results

import (
	"fmt"
	"strings"
)

// TypePlan is the record type of a run's Plan.
const TypePlan = "plan"

// Plan lists every measurement a run means to make. The runner appends it
// to results.jsonl right after the meta record, before measuring, so that
// whether a run is complete can be decided from results.jsonl alone
// (CheckPlan), also for a run killed half way.
type Plan struct {
	Fairness []PlannedFairness `json:"fairness,omitempty"`
	Points   []PlannedPoint    `json:"points,omitempty"`
	// Timelines are the dataplanes a timeline runs on.
	Timelines []string `json:"timelines,omitempty"`
	// RequiredRepetitions, when set, makes the points of later repetitions
	// optional: a sweep with a deadline (svclab plan calibrate) may stop
	// after that many, and is complete when every required point and every
	// optional point it reported was made.
	RequiredRepetitions int `json:"required_repetitions,omitempty"`
}

// optional says whether a planned point may be left out.
func (p *Plan) optional(pp PlannedPoint) bool {
	return p.RequiredRepetitions > 0 && pp.Repetition > p.RequiredRepetitions
}

// PlannedFairness is one fairness measurement: a dataplane and a service
// port, named as FairnessRun names them.
type PlannedFairness struct {
	Dataplane string `json:"dataplane"`
	Service   string `json:"service"`
}

// PlannedPoint is one sweep measurement: a point record (dataplane,
// services, position) of one repetition (1-based).
type PlannedPoint struct {
	Dataplane  string `json:"dataplane"`
	Services   int    `json:"services"`
	Position   string `json:"position"`
	Repetition int    `json:"repetition"`
}

func (p PlannedFairness) String() string { return "fairness " + p.Dataplane + " " + p.Service }

func (p PlannedPoint) String() string {
	return fmt.Sprintf("point %s/%d/%s repetition %d", p.Dataplane, p.Services, p.Position, p.Repetition)
}

// Len is the number of planned measurements.
func (p *Plan) Len() int {
	if p == nil {
		return 0
	}
	return len(p.Fairness) + len(p.Points) + len(p.Timelines)
}

// Completeness is how much of a plan a run's records made.
type Completeness struct {
	Planned int `json:"planned"`
	Made    int `json:"made"`
	// Missing names up to MaxMissing planned measurements that were not made.
	Missing []string `json:"missing,omitempty"`
}

// MaxMissing bounds Completeness.Missing.
const MaxMissing = 10

// Complete says every planned measurement was made, and at least one was
// planned: a run that planned nothing measured nothing.
func (c Completeness) Complete() bool { return c.Planned > 0 && c.Made == c.Planned }

// String is e.g. "12 of 16 planned measurements made; missing: point …".
func (c Completeness) String() string {
	s := fmt.Sprintf("%d of %d planned measurements made", c.Made, c.Planned)
	if len(c.Missing) > 0 {
		s += "; missing: " + strings.Join(c.Missing, ", ")
		if n := c.Planned - c.Made; n > len(c.Missing) {
			s += fmt.Sprintf(" and %d more", n-len(c.Missing))
		}
	}
	return s
}

// CheckPlan says which of plan's measurements records made. A measurement
// counts once, and only when its record measured something: a fairness run
// whose servers counted at least one connection (or, when the rules promise
// to drop the traffic, that sent any), a point with a latency.
// A nil plan has nothing planned (so it is not complete).
func CheckPlan(plan *Plan, records []Record) Completeness {
	made := map[string]bool{}
	for _, r := range records {
		switch {
		case r.Type == TypeFairness && r.Fairness != nil && servedAny(r.Fairness):
			made[PlannedFairness{Dataplane: r.Fairness.Dataplane, Service: r.Fairness.Service}.String()] = true
		case r.Type == TypePoint && r.Point != nil && r.Point.P50us > 0:
			p := r.Point
			made[PlannedPoint{Dataplane: p.Dataplane, Services: p.Services, Position: p.Position, Repetition: max(p.Repetition, 1)}.String()] = true
		case r.Type == TypeTimeline && r.Timeline != nil && len(r.Timeline.Seconds) > 0:
			made["timeline "+r.Timeline.Dataplane] = true
		}
	}
	c := Completeness{Planned: plan.Len()}
	check := func(key string) {
		if made[key] {
			c.Made++
		} else if len(c.Missing) < MaxMissing {
			c.Missing = append(c.Missing, key)
		}
	}
	if plan != nil {
		for _, f := range plan.Fairness {
			check(f.String())
		}
		for _, p := range plan.Points {
			if plan.optional(p) && !made[p.String()] {
				c.Planned--
				continue
			}
			check(p.String())
		}
		for _, dp := range plan.Timelines {
			check("timeline " + dp)
		}
	}
	return c
}

func servedAny(f *FairnessRun) bool {
	if f.ExpectDropped && f.Connections > 0 {
		return true
	}
	for _, e := range f.Endpoints {
		if e.Count > 0 {
			return true
		}
	}
	return false
}

// PlanOf returns the first plan record's plan, or nil when records hold none
// (a run recorded before plans were written).
func PlanOf(records []Record) *Plan {
	for _, r := range records {
		if r.Type == TypePlan && r.Plan != nil {
			return r.Plan
		}
	}
	return nil
}

// SetCompleteness records c in the summary: Complete only when c is, the
// counts, and a warning naming what is missing otherwise.
func (s *Summary) SetCompleteness(c Completeness) {
	s.Complete = c.Complete()
	s.Planned, s.Measured = c.Planned, c.Made
	switch {
	case c.Planned == 0:
		s.Warnings = append(s.Warnings, "nothing was planned: the run measured nothing")
	case !s.Complete:
		s.Warnings = append(s.Warnings, "incomplete: "+c.String())
	}
}
