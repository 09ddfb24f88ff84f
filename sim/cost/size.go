package cost

import (
	"fmt"
	"io"
	"math"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/route"
)

// Size is the ruleset of one kube-proxy mode's payload for N synthetic
// ClusterIP services (one TCP port each) with M ready endpoints each.
type Size struct {
	Mode  string `json:"mode"`
	Rules int    `json:"rules"` // as render.Stats counts them
	// FamilyRules are each IP family's payload's rules when the services
	// use more than one family (nil for one): kube-proxy runs a proxier per
	// family and each restores its own payload, so a sync takes each
	// family's time, not the time of one payload of their sum.
	FamilyRules []int `json:"family_rules,omitempty"`
	// FamilyChains are each family's payload's chains, beside FamilyRules.
	FamilyChains []int `json:"family_chains,omitempty"`
	Chains       int   `json:"chains"` // chains (IPVS: virtual servers + iptables chains)
	// Elements are nftables map/set elements or ipset members.
	Elements int `json:"elements,omitempty"`
	Bytes    int `json:"bytes"`
	// BytesExact is false when Bytes was scaled up from a rendered sample
	// (above exactBytesObjects services + endpoints): within about 1%.
	BytesExact bool `json:"bytes_exact"`
	// HashTables are the entries of each kernel hash table nf_tables
	// keeps for the payload (hashtable.go): every table's chains and every
	// nftables set's elements. For iptables, the tables iptables-nft
	// fills (iptables-legacy keeps none); empty for IPVS.
	HashTables []int `json:"hash_tables,omitempty"`
	// ChainList is the walking iptables-nft-restore --noflush does in its
	// chain list to load the payload (iptables mode; nil for the others).
	ChainList *iptables.ChainListWork `json:"chain_list,omitempty"`
	// PartialChainList is the same for kube-proxy's partial sync of one
	// changed service (the incremental sync a sweep times): every
	// KUBE-SERVICES rule still names its service's chain.
	PartialChainList *iptables.ChainListWork `json:"partial_chain_list,omitempty"`
	// PartialRules is the rules of that partial sync's payload (iptables
	// mode; 0 for the others): every KUBE-SERVICES rule and the changed
	// Service's chains, what an iptables-legacy partial restore parses
	// (PartialPayload).
	PartialRules int `json:"partial_sync_rules,omitempty"`
	// AnonymousSetWork is the anonymous sets and maps of an nftables
	// payload (the most one table holds, all of them) and the kernel's list
	// walking to load them, which costs a full sync their square (nil for
	// the other modes and without sets), priced into the syncs when the
	// calibration timed its steps (AnonymousSetPrice). A payload per
	// family: the families' steps add up.
	AnonymousSetWork *AnonymousSetWork `json:"anonymous_set_work,omitempty"`
	// RecentTables are the xt_recent tables an iptables payload names
	// (payloadRecentTables; 0 for the other modes), all in one list the
	// kernel walks by name (RecentTablesWarnAt).
	RecentTables int `json:"recent_tables,omitempty"`
	// RecentSync are, by rule-walk dataplane, the steps its syncs take
	// through those tables' list (payloadRecentSync; nil without them).
	RecentSync map[string]RecentSyncSteps `json:"recent_sync,omitempty"`
	// Partial is the payload a partial sync restores when the services use
	// more than one family (nil for one): the largest family's alone.
	// kube-proxy's metaproxier hands an EndpointSlice to its address
	// type's proxier only, so one endpoint change syncs one family (its
	// partial chain-list walk, its xt_recent lists, its anonymous sets).
	Partial *Size `json:"partial_sync_family,omitempty"`
	// oneOfFamilies marks the Partial that forPartialSync returns, so a
	// sync's form says it restores one family's payload of several.
	oneOfFamilies bool
}

// forPartialSync is the size a partial sync of s restores: Partial, its
// rules scaled as s's were (a holdout sets Rules to what the lab loaded),
// or s itself for one family.
func (s Size) forPartialSync() Size {
	if s.Partial == nil {
		return s
	}
	p := *s.Partial
	p.oneOfFamilies = true
	total := 0
	for _, r := range s.FamilyRules {
		total += r
	}
	if total > 0 && s.Rules != total {
		p.Rules = int(math.Round(float64(p.Rules) * float64(s.Rules) / float64(total)))
	}
	return p
}

// exactBytesObjects is the most services + endpoints whose payload
// RulesetSize renders in full to count its bytes; larger ones are scaled
// from a sample of this size. A variable so tests can lower it.
var exactBytesObjects = 300_000

// RulesetSize returns the size of mode's payload (iptables, nftables or
// ipvs) for n services with m endpoints each. Rules, chains and elements
// come from exact formulas (pinned against the renderers in tests); bytes
// from rendering the seeded synthetic model.
func RulesetSize(mode string, n, m int) (Size, error) {
	if n < 0 || m < 0 {
		return Size{}, fmt.Errorf("ruleset size of %d services × %d endpoints: want ≥ 0", n, m)
	}
	s, err := countsOf(mode, n, m)
	if err != nil {
		return Size{}, err
	}
	if s.Bytes, s.BytesExact, err = payloadBytes(mode, n, m); err != nil {
		return s, err
	}
	if s.HashTables, err = syntheticHashTables(mode, n, m); err != nil {
		return s, err
	}
	if s.AnonymousSetWork, err = syntheticWork(mode, n, m); err != nil {
		return s, err
	}
	if s.RecentTables, err = syntheticRecentTables(mode, n, m); err != nil {
		return s, err
	}
	if s.ChainList, err = syntheticChainList(mode, n, m, false); err != nil {
		return s, err
	}
	if s.PartialRules, err = partialPayloadRules(mode, n, m); err != nil {
		return s, err
	}
	s.PartialChainList, err = syntheticChainList(mode, n, m, true)
	return s, err
}

// countsOf is the formula part of RulesetSize: the mode's formula in
// its sim/route entry (route.PayloadSize).
func countsOf(mode string, n, m int) (Size, error) {
	md, err := dataplane.ParseMode(mode)
	if err != nil {
		return Size{}, err
	}
	st, err := route.PayloadSize(md, n, m)
	return Size{Mode: mode, Rules: st.Rules, Chains: st.Chains, Elements: st.Elements}, err
}

// payloadBytes renders the payload and counts its bytes. Above
// exactBytesObjects it renders a sample of S services instead and
// extrapolates with the bytes per service of the sample's upper half
// (services S/2..S), whose names and addresses are the most like the
// larger ones'.
func payloadBytes(mode string, n, m int) (int, bool, error) {
	if n*(1+m) <= exactBytesObjects {
		st, err := renderStats(mode, n, m)
		return st.Bytes, true, err
	}
	sample := max(2, exactBytesObjects/(1+m))
	half, err := renderStats(mode, sample/2, m)
	if err != nil {
		return 0, false, err
	}
	full, err := renderStats(mode, sample, m)
	if err != nil {
		return 0, false, err
	}
	perService := float64(full.Bytes-half.Bytes) / float64(sample-sample/2)
	return full.Bytes + int(perService*float64(n-sample)+0.5), false, nil
}

// renderStats renders the seeded synthetic model of n services × m
// endpoints in one mode and returns the payload's statistics.
func renderStats(mode string, n, m int) (render.Stats, error) {
	return renderTo(io.Discard, mode, n, m)
}

// renderTo writes mode's payload of n synthetic services with m endpoints
// each (the seeded generator's) to w.
func renderTo(w io.Writer, mode string, n, m int) (render.Stats, error) {
	md, err := dataplane.ParseMode(mode)
	if err != nil {
		return render.Stats{}, err
	}
	mdl, err := syntheticModel(n, m)
	if err != nil {
		return render.Stats{}, err
	}
	return route.Render(w, mdl, route.Config{Mode: md})
}

// syntheticModel is the seeded synthetic model of n services with m
// endpoints each that the model sizes payloads with.
func syntheticModel(n, m int) (*model.Model, error) {
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, EndpointsPerService: m, Seed: 1})
	if err != nil {
		return nil, fmt.Errorf("ruleset of %d services × %d endpoints: %w", n, m, err)
	}
	return &model.Model{Cluster: model.DefaultCluster(), Services: gen}, nil
}
