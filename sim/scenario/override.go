package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
)

// override is a change to the decoded file made by the caller (a flag),
// applied before validation so that the result is validated like the file.
type override struct {
	field string // the field it sets, e.g. "dataplanes"
	desc  string // what set it, for errors and the hash, e.g. "dataplanes=ipvs"
	// unhashed overrides leave Hash alone (see WithKubeProxy).
	unhashed bool
	apply    func(*file) error
}

// with returns the scenario re-decoded from its bytes with o added to its
// overrides, validated again.
func (s *Scenario) with(o override) (*Scenario, error) {
	return parse(s.Source, s.Raw, append(slices.Clone(s.overrides), o))
}

var errNoRunSection = errors.New("the scenario has neither a fairness: nor a sweep: section")

// WithDataplanes returns the scenario with its fairness, sweep and
// timeline sections measuring exactly list (e.g. from --dataplane). An
// empty list, an empty or unknown name, or a scenario with nothing to run
// is an error.
func (s *Scenario) WithDataplanes(list []string) (*Scenario, error) {
	if len(list) == 0 {
		return nil, &FieldError{File: s.Source, Field: "dataplanes", Msg: "no dataplane given", Hint: "use " + strings.Join(dataplane.Names(), ", ")}
	}
	for _, d := range list {
		if _, err := dataplane.Parse(d); err != nil {
			return nil, &FieldError{File: s.Source, Field: "dataplanes", Msg: err.Error()}
		}
	}
	list = slices.Clone(list)
	return s.with(override{field: "dataplanes", desc: "dataplanes=" + strings.Join(list, ","), apply: func(f *file) error {
		if f.Fairness == nil && f.Sweep == nil && f.Timeline == nil {
			return errNoRunSection
		}
		if f.Fairness != nil {
			f.Fairness.Dataplanes = slices.Clone(list)
		}
		if f.Sweep != nil {
			f.Sweep.Dataplanes = slices.Clone(list)
		}
		if f.Timeline != nil {
			f.Timeline.Dataplanes = slices.Clone(list)
		}
		return nil
	}})
}

// WithConnections returns the scenario with its fairness and sweep sections
// making n connections per measurement (e.g. from --connections); n must
// be within the same limits as the file's connections field.
func (s *Scenario) WithConnections(n int) (*Scenario, error) {
	return s.with(override{field: "connections", desc: fmt.Sprintf("connections=%d", n), apply: func(f *file) error {
		if f.Fairness == nil && f.Sweep == nil {
			return errNoRunSection
		}
		if f.Fairness != nil {
			f.Fairness.Connections = &n
		}
		if f.Sweep != nil {
			f.Sweep.Connections = &n
		}
		return nil
	}})
}

// WithFairness returns the scenario with its fairness section replaced by
// the default one on the given dataplanes (what `svclab up` serves).
func (s *Scenario) WithFairness(dataplanes ...string) (*Scenario, error) {
	for _, d := range dataplanes {
		if _, err := dataplane.Parse(d); err != nil {
			return nil, &FieldError{File: s.Source, Field: "fairness.dataplanes", Msg: err.Error()}
		}
	}
	list := slices.Clone(dataplanes)
	return s.with(override{field: "fairness", desc: "fairness.dataplanes=" + strings.Join(list, ","), apply: func(f *file) error {
		f.Fairness = &fairnessSpec{Dataplanes: slices.Clone(list)}
		return nil
	}})
}

// WithRepetitions returns the scenario with its sweep repeated n times
// (e.g. from --repetitions); n must be within the file field's limits.
// Like WithKubeProxy it leaves Hash alone: how often a point is measured
// does not change what one measurement is, so runs of one repetition each
// (svclab ab runs them) merge into one run of the same scenario.
func (s *Scenario) WithRepetitions(n int) (*Scenario, error) {
	return s.with(override{field: "repetitions", desc: fmt.Sprintf("repetitions=%d", n), unhashed: true, apply: func(f *file) error {
		if f.Sweep == nil {
			return errors.New("the scenario has no sweep: section to repeat")
		}
		f.Sweep.Repetitions = &n
		return nil
	}})
}
