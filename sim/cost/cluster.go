package cost

import (
	"bytes"
	"fmt"
	"maps"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/route"
)

// Composition is a real cluster's ruleset per kube-proxy mode, as svclab's
// renderers write it: what sync times, kernel memory and the first-packet
// lookup depend on. A plan for a cluster (svclab plan --objects) predicts
// from it instead of from N uniform synthetic services.
type Composition struct {
	// Source names the objects file and Scale the multiple of its size.
	Source string  `json:"source"`
	Scale  float64 `json:"scale"`
	// Services are the proxied services, ServicePorts their ports,
	// Endpoints their endpoints (per port, as the rules hold them).
	Services  int `json:"services"`
	Endpoints int `json:"endpoints"`
	// ServiceRules are the rules of iptables' KUBE-SERVICES chain: one per
	// service port and address (ClusterIP, external and load-balancer
	// IPs). A first packet to a service walks the rules before its own; to
	// a uniformly random service (port), (ServiceRules+1)/2 on average.
	ServiceRules int `json:"service_rules"`
	// Walk is what first packets to the services evaluate, traced through
	// the rules of that proxier (nil without one): the rules a lookup
	// walks (evaluations), for the cluster's own mix of Services.
	Walk *TracedWalk `json:"traced_walk,omitempty"`
	// Modes is the payload's size per mode (iptables, nftables).
	Modes map[string]Size `json:"modes"`
}

// CompositionOf renders mdl in iptables and nftables mode (kube-proxy's
// default options), once per IP family its services use (kube-proxy runs a
// proxier per family; the sizes add up), and measures each payload.
// ServiceRules are the IPv4 proxier's (the family the calibration measured),
// or the first family's when there is no IPv4 service.
func CompositionOf(source string, scale float64, mdl *model.Model) (Composition, error) {
	cfgs := make([]route.Config, len(compositionModes))
	for i, md := range compositionModes {
		cfgs[i] = route.Config{Mode: md}
	}
	return CompositionFor(source, scale, mdl, cfgs...)
}

// CompositionFor is CompositionOf for the kube-proxy configurations cfgs
// (one per mode: its release and flags; IPVS too): svclab migrate sizes
// each side's ruleset as that side writes it. ServiceRules come from the
// iptables configuration, and are 0 without one.
func CompositionFor(source string, scale float64, mdl *model.Model, cfgs ...route.Config) (Composition, error) {
	c := Composition{Source: source, Scale: scale, Modes: map[string]Size{}}
	c.Services = mdl.Services.Len()
	for i := range c.Services {
		c.Endpoints += len(mdl.Services.At(i).Endpoints)
	}
	var families []Composition
	for i, fam := range model.Families(mdl.Services) {
		proj := model.ForFamily(*mdl, fam)
		own := Composition{Modes: map[string]Size{}}
		for _, cfg := range cfgs {
			if err := c.addPayload(source, &proj, fam, cfg, fam == model.IPv4 || i == 0, &own); err != nil {
				return c, err
			}
		}
		families = append(families, own)
	}
	for mode, s := range c.Modes {
		if len(s.FamilyRules) < 2 {
			s.FamilyRules, s.FamilyChains = nil, nil
		} else {
			s.Partial = largestFamily(mode, families)
		}
		c.Modes[mode] = s
	}
	return c, nil
}

// largestFamily is the size of mode's largest family payload (the most
// rules; the first of equals), as Size.Partial.
func largestFamily(mode string, families []Composition) *Size {
	var out *Size
	for _, f := range families {
		s, ok := f.Modes[mode]
		if ok && (out == nil || s.Rules > out.Rules) {
			s.FamilyRules, s.FamilyChains = nil, nil
			out = &s
		}
	}
	return out
}

// addPayload renders one family's payload of cfg's mode and adds its size,
// hash tables and chain-list walks to c and to own, that family's alone;
// serviceRules says this family's KUBE-SERVICES rules are the ones a
// lookup walks.
func (c *Composition) addPayload(source string, proj *model.Model, fam model.Family, cfg route.Config, serviceRules bool, own *Composition) error {
	var payload bytes.Buffer
	st, err := route.Render(&payload, proj, cfg)
	if err != nil {
		return fmt.Errorf("%s: render %s (%s): %w", source, cfg.Mode, fam, err)
	}
	tables, err := payloadHashTables(cfg.Mode, payload.Bytes())
	if err != nil {
		return fmt.Errorf("%s: %s (%s): %w", source, cfg.Mode, fam, err)
	}
	walk, err := payloadChainList(cfg.Mode, payload.Bytes())
	if err != nil {
		return fmt.Errorf("%s: %s (%s): %w", source, cfg.Mode, fam, err)
	}
	sets, lists := payloadAnonymousSetWork(cfg.Mode, payload.Bytes()), payloadRecentTables(cfg.Mode, payload.Bytes())
	// xt_recent's lists are one list per namespace: this family's rules
	// walk past the lists the families before it made (c's, not own's).
	recent := payloadRecentSync(cfg.Mode, payload.Bytes(), c.Modes[string(cfg.Mode)].RecentTables)
	var partial *iptables.ChainListWork
	partialRules := 0
	if cfg.Mode == dataplane.ModeIPTables {
		if partial, partialRules, err = partialChainList(proj, cfg.Config); err != nil {
			return fmt.Errorf("%s: %s (%s): %w", source, cfg.Mode, fam, err)
		}
	}
	for _, into := range []*Composition{c, own} {
		into.add(string(cfg.Mode), st, tables, walk)
		into.addNamedLists(string(cfg.Mode), sets, lists, maps.Clone(recent))
		if partial != nil {
			into.addPartial(string(cfg.Mode), partial, partialRules)
		}
	}
	if cfg.Mode != dataplane.ModeIPTables {
		return nil
	}
	if serviceRules {
		c.ServiceRules = bytes.Count(payload.Bytes(), []byte("\n-A KUBE-SERVICES "))
		if c.Walk, err = traceWalk(payload.Bytes(), proj, cfg); err != nil {
			return fmt.Errorf("%s: %s (%s): %w", source, cfg.Mode, fam, err)
		}
	}
	return nil
}

// compositionModes are the modes CompositionOf sizes, rendered by their
// sim/route entries: the two the lookup calibration measured.
var compositionModes = []dataplane.Mode{dataplane.ModeIPTables, dataplane.ModeNFTables}

// add adds one family's payload statistics and hash tables to mode's
// size (each family's proxier writes tables of its own).
func (c *Composition) add(mode string, st render.Stats, tables []int, walk *iptables.ChainListWork) {
	s := c.Modes[mode]
	s.Mode, s.BytesExact = mode, true
	s.Rules += st.Rules
	s.FamilyRules = append(s.FamilyRules, st.Rules)
	s.FamilyChains = append(s.FamilyChains, st.Chains)
	s.Chains += st.Chains
	s.Elements += st.Elements
	s.Bytes += st.Bytes
	s.HashTables = append(s.HashTables, tables...)
	if walk != nil {
		if s.ChainList == nil {
			s.ChainList = &iptables.ChainListWork{}
		}
		s.ChainList.Add(walk)
	}
	c.Modes[mode] = s
}

// addNamedLists records one family's anonymous sets and xt_recent tables:
// each family's nftables proxier writes a table of its own, so the
// largest table's anonymous sets count; a namespace's xt_recent tables are
// one list, so both families' add up.
func (c *Composition) addNamedLists(mode string, anonymousSets AnonymousSetWork, recentTables int, recentSync map[string]RecentSyncSteps) {
	s := c.Modes[mode]
	if anonymousSets.walked() {
		s.AnonymousSetWork = s.AnonymousSetWork.plus(anonymousSets)
	}
	s.RecentTables += recentTables
	s.RecentSync = plusRecentSync(s.RecentSync, recentSync)
	c.Modes[mode] = s
}

// addPartial adds one family's partial-sync walk and payload rules to
// mode's size.
func (c *Composition) addPartial(mode string, walk *iptables.ChainListWork, rules int) {
	s := c.Modes[mode]
	s.PartialRules += rules
	if s.PartialChainList == nil {
		s.PartialChainList = &iptables.ChainListWork{}
	}
	s.PartialChainList.Add(walk)
	c.Modes[mode] = s
}

// evaluations is the rules a first packet walks for a position in this
// cluster (LinearWalk: traced, else its KUBE-SERVICES rules), or 1
// (MapLookup).
func (c *Composition) evaluations(lookup Lookup, position string) (float64, error) {
	if lookup == LinearWalk && c.Walk != nil {
		return c.Walk.evaluations(position)
	}
	return Evaluations(lookup, position, max(c.ServiceRules, 1))
}
