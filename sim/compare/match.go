package compare

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNoCommonPoints says the two runs share no point to compare.
var ErrNoCommonPoints = errors.New("no point is measured in both runs")

// pair is a base point matched with a new point.
type pair struct{ base, new Key }

// matching is how the points of the two runs were paired.
type matching struct {
	pairs             []pair
	baseOnly, newOnly []Key
	description       string
	baseDP, newDP     string // "" unless one dataplane per side was chosen
	acrossDataplanes  bool
}

// matchPoints pairs the points of base and new. With no dataplane chosen,
// points match on their whole key, except that when each run has a single
// dataplane and they differ, those two are compared (as if chosen). With
// dataplanes chosen (either defaults to the other), each side keeps that
// dataplane's points and they match on services and position (or service).
func matchPoints(base, new samples, opts Options) (matching, error) {
	bd, nd := opts.BaseDataplane, opts.NewDataplane
	auto := false
	switch {
	case bd == "" && nd == "":
		b, n := base.dataplanes(), new.dataplanes()
		if len(b) == 1 && len(n) == 1 && b[0] != n[0] {
			bd, nd, auto = b[0], n[0], true
		}
	case bd == "":
		bd = nd
	case nd == "":
		nd = bd
	}
	if bd == "" {
		m := pairUp(base.keys, new.keys, func(k Key) Key { return k })
		m.description = "points matched on " + fullKeyOf(base.keys)
		return m, nil
	}
	if err := requireDataplane("base", base, bd); err != nil {
		return matching{}, err
	}
	if err := requireDataplane("new", new, nd); err != nil {
		return matching{}, err
	}
	m := pairUp(onDataplane(base.keys, bd), onDataplane(new.keys, nd), Key.withoutDataplane)
	m.baseDP, m.newDP, m.acrossDataplanes = bd, nd, bd != nd
	m.description = describeAcross(bd, nd, auto, matchedOn(base.keys))
	return m, nil
}

// matchedOn names what points are matched on besides the dataplane.
func matchedOn(keys []Key) string {
	sweep := slices.ContainsFunc(keys, func(k Key) bool { return !isFairness(k) })
	fairness := slices.ContainsFunc(keys, isFairness)
	switch {
	case fairness && !sweep:
		return "service"
	case fairness:
		return "services and position (fairness runs: service)"
	}
	return "services and position"
}

// fullKeyOf names a whole key, for points matched on it.
func fullKeyOf(keys []Key) string {
	switch on := matchedOn(keys); on {
	case "service":
		return "dataplane and service"
	case "services and position":
		return "dataplane, services and position"
	}
	return "dataplane, services and position (fairness runs: dataplane and service)"
}

func describeAcross(bd, nd string, auto bool, on string) string {
	if bd == nd {
		return fmt.Sprintf("dataplane %s only; points matched on %s", bd, on)
	}
	s := fmt.Sprintf("base dataplane %s compared with new dataplane %s; points matched on %s", bd, nd, on)
	if auto {
		s += ", because each run has a single dataplane"
	}
	return s
}

// pairUp pairs keys whose match keys are equal, in base order, and lists
// the points of each side that have no partner.
func pairUp(base, new []Key, matchKey func(Key) Key) matching {
	newByMatch := map[Key]Key{}
	for _, k := range new {
		newByMatch[matchKey(k)] = k
	}
	var m matching
	paired := map[Key]bool{}
	for _, b := range base {
		n, ok := newByMatch[matchKey(b)]
		if !ok {
			m.baseOnly = append(m.baseOnly, b)
			continue
		}
		m.pairs = append(m.pairs, pair{b, n})
		paired[n] = true
	}
	for _, n := range new {
		if !paired[n] {
			m.newOnly = append(m.newOnly, n)
		}
	}
	return m
}

func onDataplane(keys []Key, dataplane string) []Key {
	var out []Key
	for _, k := range keys {
		if k.Dataplane == dataplane {
			out = append(out, k)
		}
	}
	return out
}

func requireDataplane(side string, s samples, dataplane string) error {
	if slices.Contains(s.dataplanes(), dataplane) {
		return nil
	}
	return fmt.Errorf("the %s run has no dataplane %s (it has %s)", side, dataplane, strings.Join(s.dataplanes(), ", "))
}

// oneSidedWarnings names the points measured on one side only.
func (m matching) oneSidedWarnings() []string {
	var out []string
	if len(m.baseOnly) > 0 {
		out = append(out, fmt.Sprintf("%d points only in base, not compared: %s", len(m.baseOnly), keyList(m.baseOnly)))
	}
	if len(m.newOnly) > 0 {
		out = append(out, fmt.Sprintf("%d points only in new, not compared: %s", len(m.newOnly), keyList(m.newOnly)))
	}
	return out
}

func keyList(keys []Key) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}
