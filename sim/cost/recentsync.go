package cost

import (
	"cmp"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
)

// RecentSyncSteps are the steps a sync takes through xt_recent's list of
// lists: xt_recent finds a rule's list by name for every rule it loads
// (recent_mt_check: a new list is appended after a walk of all of them)
// and unloads (recent_mt_destroy). Full is a load into empty tables;
// Incremental a sync that replaces the whole table (iptables-legacy's
// restore: every rule checked again, the old ones destroyed), 0 where a
// sync replaces the changed chains' rules alone (iptables-nft: a few
// lists of one Service, not priced).
type RecentSyncSteps struct {
	Full        float64 `json:"full"`
	Incremental float64 `json:"incremental,omitempty"`
}

// recentRule is a rule with a recent match: its table (the payload's
// how-manieth), its chain and its list.
type recentRule struct {
	table       int
	chain, list string
}

// payloadRecentRules are an iptables payload's rules with a recent match,
// in payload order.
func payloadRecentRules(payload []byte) []recentRule {
	var out []recentRule
	table := 0
	eachLine(payload, func(line string) {
		if strings.HasPrefix(line, "*") {
			table++
			return
		}
		if !strings.HasPrefix(line, "-A ") || !strings.Contains(line, "-m recent") {
			return
		}
		_, rest, ok := strings.Cut(line, " --name ")
		if !ok {
			return
		}
		chain, _, _ := strings.Cut(line[3:], " ")
		list, _, _ := strings.Cut(rest, " ")
		out = append(out, recentRule{table: table, chain: chain, list: list})
	})
	return out
}

// payloadRecentSync is each rule-walk dataplane's RecentSyncSteps for an
// iptables payload loaded after another family's payload left before lists
// in the namespace (0 for the first): xt_recent keeps one list of lists
// per network namespace for both families, and appends a new list at its
// end, so every rule of this payload checked or destroyed walks past
// those first. Nil without recent rules.
func payloadRecentSync(mode dataplane.Mode, payload []byte, before int) map[string]RecentSyncSteps {
	if mode != dataplane.ModeIPTables {
		return nil
	}
	rules := payloadRecentRules(payload)
	if len(rules) == 0 {
		return nil
	}
	out := map[string]RecentSyncSteps{}
	for _, info := range dataplane.All() {
		if info.Mode != mode || info.Lookup != dataplane.LinearWalk {
			continue
		}
		full, places := loadSteps(checkOrder(rules, info.RulesCheckedSorted))
		s := RecentSyncSteps{Full: full + float64(len(rules)*before)}
		if info.RestoreReplacesTable {
			for _, r := range rules {
				s.Incremental += 2 * float64(places[r.list]+before)
			}
		}
		out[string(info.Name)] = s
	}
	return out
}

// checkOrder is rules in the order the kernel checks them on a load, and so
// creates their lists: table by table in the payload's order, and within a
// table in its restore tool's order: user chains sorted by name (sorted,
// libiptc; the built-in chains, first, have no recent rule kube-proxy
// writes), or every rule as the payload adds it (iptables-nft).
func checkOrder(rules []recentRule, sorted bool) []recentRule {
	if !sorted {
		return rules
	}
	out := slices.Clone(rules)
	slices.SortStableFunc(out, func(a, b recentRule) int {
		return cmp.Or(cmp.Compare(a.table, b.table), cmp.Compare(a.chain, b.chain))
	})
	return out
}

// recentPlaces is each xt_recent list's place (1-based) in the kernel's
// list of them once payload is loaded into empty tables.
func recentPlaces(payload []byte, sorted bool) map[string]int {
	_, places := loadSteps(checkOrder(payloadRecentRules(payload), sorted))
	return places
}

// loadSteps are the steps of loading rules, in the order the kernel checks
// them, into a namespace without lists: a rule whose list exists walks to
// its place, another walks all of them and appends its own; and the places
// that leaves.
func loadSteps(rules []recentRule) (float64, map[string]int) {
	places := map[string]int{}
	var steps float64
	for _, r := range rules {
		if p, ok := places[r.list]; ok {
			steps += float64(p)
			continue
		}
		steps += float64(len(places))
		places[r.list] = len(places) + 1
	}
	return steps, places
}

// plusRecentSync is a and b's steps added (two families' payloads, the
// second's counted past the first's lists: payloadRecentSync).
func plusRecentSync(a, b map[string]RecentSyncSteps) map[string]RecentSyncSteps {
	if a == nil {
		return b
	}
	for k, v := range b {
		s := a[k]
		s.Full += v.Full
		s.Incremental += v.Incremental
		a[k] = s
	}
	return a
}

// scaledRecentSync is the steps of f times the services: f times the
// lists, each walked f times further, so f² times the steps.
func scaledRecentSync(m map[string]RecentSyncSteps, f float64) map[string]RecentSyncSteps {
	if m == nil {
		return nil
	}
	out := make(map[string]RecentSyncSteps, len(m))
	for k, v := range m {
		out[k] = RecentSyncSteps{Full: v.Full * f * f, Incremental: v.Incremental * f * f}
	}
	return out
}

// recentSyncSeconds is what steps cost on the calibration's machine (nil
// without a calibrated step or steps).
func (dm *DataplaneModel) recentSyncSeconds(steps float64) *Estimate {
	if dm.Recent == nil || steps < 1 {
		return nil
	}
	s := dm.Recent.PerStepUs.Scale(steps / 1e6)
	return &s
}

// withRecentSync adds to s (a sync prediction, nil for none) the walks of
// steps, recording them apart.
func (dm *DataplaneModel) withRecentSync(s *SyncPrediction, steps float64) {
	if s == nil {
		return
	}
	if e := dm.recentSyncSeconds(steps); e != nil {
		s.RecentLists = e
		s.Seconds = s.Seconds.Plus(*e)
		s.Form += " + xt_recent list walks"
	}
}
