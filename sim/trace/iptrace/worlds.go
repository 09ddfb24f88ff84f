package iptrace

import (
	"fmt"
	"math"
	"strings"
)

// maxUndecided is the most distinct undecided rules whose every combination
// (2^n worlds) the tracer compares.
const maxUndecided = 10

// worldScratch is the working memory of settleWorlds.
type worldScratch struct {
	keys        []ruleKey
	need, val   []uint32 // per done branch: which undecided rules it assumed, and how
	consistent  []bool
	dist, dist0 []outcomeWeight
}

// ruleKey names a rule of the compiled ruleset.
type ruleKey struct {
	table       uint8
	chain, rule int32
}

// outcomeWeight is the effective probability of one outcome in a world.
type outcomeWeight struct {
	verdict Verdict
	dnat    string
	masq    bool
	eff     float64
}

// settleWorlds handles the undecided matches of a finished trace. Each
// undecided rule may match or not; a world is one choice for every such
// rule, and the branches consistent with it form a complete trace. If
// every world gives the same outcomes with the same probabilities, the
// trace is decided and the branches of the world where no undecided rule
// matches are kept. Otherwise it returns the flags describing the worlds
// and unknown is true. Undecided lists each undecided rule once.
func (t *IPTablesTracer) settleWorlds(s *scratch, undecided []string) (flags, und []string, unknown bool) {
	w := &s.worlds
	w.keys = w.keys[:0]
	whys := map[ruleKey]string{}
	for i := range s.done {
		for a := s.done[i].assumed; a >= 0; a = s.assume[a].prev {
			as := &s.assume[a]
			k := ruleKey{as.table, as.chain, as.rule}
			if _, seen := whys[k]; !seen {
				whys[k] = as.why
				w.keys = append(w.keys, k)
			}
		}
	}
	und = undecided[:0]
	for _, k := range w.keys {
		und = append(und, t.ruleName(k)+": "+whys[k])
	}
	if len(w.keys) > maxUndecided {
		return []string{fmt.Sprintf("%d undecided matches: too many combinations to compare", len(w.keys))}, und, true
	}
	w.need, w.val = w.need[:0], w.val[:0]
	for i := range s.done {
		var need, val, clash uint32
		for a := s.done[i].assumed; a >= 0; a = s.assume[a].prev {
			as := &s.assume[a]
			bit := uint32(1) << indexOf(w.keys, ruleKey{as.table, as.chain, as.rule})
			if as.matched {
				if need&bit != 0 && val&bit == 0 {
					clash |= bit
				}
				val |= bit
			} else if val&bit != 0 {
				clash |= bit
			}
			need |= bit
		}
		if clash != 0 {
			need, val = ^uint32(0), ^uint32(0) // consistent with no world
		}
		w.need, w.val = append(w.need, need), append(w.val, val)
	}
	w.dist0 = t.worldOutcomes(s, 0, w.dist0[:0])
	for world := uint32(1); world < 1<<len(w.keys); world++ {
		w.dist = t.worldOutcomes(s, world, w.dist[:0])
		if !sameOutcomes(w.dist0, w.dist) {
			return t.describeWorlds(s, whys), und, true
		}
	}
	t.keepWorld(s, 0)
	return []string{fmt.Sprintf("undecided matches (%s) give the same outcome either way", strings.Join(und, "; "))}, und, false
}

func indexOf(keys []ruleKey, k ruleKey) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	return -1
}

// consistent reports whether done branch i belongs to world.
func (w *worldScratch) consistentWith(i int, world uint32) bool {
	return (w.val[i]^world)&w.need[i] == 0 && w.need[i] != ^uint32(0)
}

// worldOutcomes sums the effective probabilities of the outcomes of world.
func (t *IPTablesTracer) worldOutcomes(s *scratch, world uint32, dist []outcomeWeight) []outcomeWeight {
	for i := range s.done {
		if !s.worlds.consistentWith(i, world) {
			continue
		}
		b := &s.done[i]
		o := outcomeWeight{verdict: b.verdict, masq: b.masquerade}
		if b.dnatTo.IsValid() {
			o.dnat = b.dnatTo.String()
		}
		found := false
		for j := range dist {
			if dist[j].verdict == o.verdict && dist[j].dnat == o.dnat && dist[j].masq == o.masq {
				dist[j].eff += b.eff
				found = true
			}
		}
		if !found {
			o.eff = b.eff
			dist = append(dist, o)
		}
	}
	return dist
}

func sameOutcomes(a, b []outcomeWeight) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if x.verdict == y.verdict && x.dnat == y.dnat && x.masq == y.masq && math.Abs(x.eff-y.eff) < 1e-12 {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// keepWorld leaves in s.done only the branches of world.
func (t *IPTablesTracer) keepWorld(s *scratch, world uint32) {
	n := 0
	for i := range s.done {
		if s.worlds.consistentWith(i, world) {
			s.done[n] = s.done[i]
			n++
		}
	}
	s.done = s.done[:n]
}

// describeWorlds says what each combination of assumptions gives (at most
// 8 lines).
func (t *IPTablesTracer) describeWorlds(s *scratch, whys map[ruleKey]string) []string {
	w := &s.worlds
	var flags []string
	for world := uint32(0); world < 1<<len(w.keys) && len(flags) < 8; world++ {
		var as []string
		for i, k := range w.keys {
			word := "does not match"
			if world&(1<<i) != 0 {
				word = "matches"
			}
			as = append(as, t.ruleName(k)+" "+word)
		}
		var outs []string
		for _, o := range t.worldOutcomes(s, world, nil) {
			text := string(o.verdict)
			if o.dnat != "" {
				text += " via DNAT to " + o.dnat
			}
			if o.masq {
				text += " masqueraded"
			}
			outs = append(outs, fmt.Sprintf("%s (p=%.4g)", text, o.eff))
		}
		flags = append(flags, "if "+strings.Join(as, " and ")+": "+strings.Join(outs, ", "))
	}
	_ = whys
	return flags
}

// ruleName is "filter FORWARD #3".
func (t *IPTablesTracer) ruleName(k ruleKey) string {
	tbl := t.tables[k.table]
	return fmt.Sprintf("%s %s #%d", tbl.name, tbl.chains[k.chain].name, k.rule+1)
}
