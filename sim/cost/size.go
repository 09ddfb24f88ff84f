package cost

import (
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/render/ipvs"
	"github.com/svclab/svclab/sim/render/nftables"
)

// Size is the ruleset of one kube-proxy mode's payload for N synthetic
// ClusterIP services (one TCP port each) with M ready endpoints each.
type Size struct {
	Mode   string `json:"mode"`
	Rules  int    `json:"rules"`  // as render.Stats counts them
	Chains int    `json:"chains"` // chains (IPVS: virtual servers + iptables chains)
	// Elements are nftables map/set elements or ipset members.
	Elements int `json:"elements,omitempty"`
	Bytes    int `json:"bytes"`
	// BytesExact is false when Bytes was scaled up from a rendered sample
	// (above exactBytesObjects services + endpoints): within about 1%.
	BytesExact bool `json:"bytes_exact"`
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
	s.Bytes, s.BytesExact, err = payloadBytes(mode, n, m)
	return s, err
}

// countsOf is the formula part of RulesetSize.
func countsOf(mode string, n, m int) (Size, error) {
	withEndpoints := 0 // services that have endpoints
	if m > 0 {
		withEndpoints = n
	}
	switch dataplane.Mode(mode) {
	case dataplane.ModeIPTables:
		// Fixed: 9 rules, 10 chains. Per service with M endpoints: one
		// KUBE-SERVICES rule, a KUBE-SVC chain (1 masquerade rule + M
		// jumps) and M KUBE-SEP chains of 2 rules: 3M+2 rules, 1+M chains.
		// Without endpoints: one filter REJECT rule.
		return Size{Mode: mode, Rules: 9 + withEndpoints*(3*m+2) + (n - withEndpoints),
			Chains: 10 + withEndpoints*(1+m)}, nil
	case dataplane.ModeNFTables:
		// kube-proxy v1.36+'s layout (the renderers' default). Fixed: 22
		// rules, 15 chains. Per service with endpoints: a service chain with
		// one rule (dnat to the endpoint, or through a numgen map), and a
		// hairpin-connections element per endpoint. Every service has 2
		// more elements: its cluster-ips set entry, and its service-ips map
		// entry (no-endpoint-services when it has no endpoints). (v1.35's
		// layout: 23 rules and 16 chains fixed, plus a service chain and M
		// endpoint chains of 2M+2 rules per service, and 2 elements.)
		return Size{Mode: mode, Rules: 22 + withEndpoints, Chains: 15 + withEndpoints,
			Elements: 2*n + withEndpoints*m}, nil
	case dataplane.ModeIPVS:
		// IPVS: one virtual server per service, one real server per
		// endpoint; the iptables part is 17 rules, plus 2 once a service
		// exists and 1 once an endpoint does; 11 chains, plus one virtual
		// server per service. ipset members: KUBE-CLUSTER-IP and
		// KUBE-IPVS-IPS hold every service, KUBE-LOOP-BACK every (local)
		// endpoint.
		ipt := 17
		if n > 0 {
			ipt += 2
		}
		if n > 0 && m > 0 {
			ipt++
		}
		return Size{Mode: mode, Rules: ipt + n*(1+m), Chains: 11 + n, Elements: 2*n + n*m}, nil
	}
	_, err := dataplane.ParseMode(mode)
	return Size{}, err
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
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, EndpointsPerService: m, Seed: 1})
	if err != nil {
		return render.Stats{}, fmt.Errorf("ruleset of %d services × %d endpoints: %w", n, m, err)
	}
	mdl := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
	switch dataplane.Mode(mode) {
	case dataplane.ModeIPTables:
		return iptables.Render(io.Discard, mdl, iptables.DefaultOptions())
	case dataplane.ModeNFTables:
		return nftables.Render(io.Discard, mdl, nftables.Options{})
	case dataplane.ModeIPVS:
		st, err := ipvs.Render(io.Discard, mdl, ipvs.DefaultOptions())
		return st.Total, err
	}
	_, err = dataplane.ParseMode(mode)
	return render.Stats{}, err
}
