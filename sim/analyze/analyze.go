package analyze

import (
	"math"
	"net/netip"
	"sort"

	"github.com/svclab/svclab/sim/trace"
)

// deviationLimit is the relative deviation from a uniform split above which
// a service is flagged.
const deviationLimit = 1e-6

// ServiceRow is one service port's first-packet cost and split.
type ServiceRow struct {
	Service        string `json:"service"`
	Position       int    `json:"position"` // 1-based rule in KUBE-SERVICES (iptables) or element in service-ips (nftables)
	Destination    string `json:"destination"`
	Protocol       string `json:"protocol"`
	Endpoints      int    `json:"endpoints"`
	RulesEvaluated int    `json:"rules_evaluated"`
	// AddrTypeMatches counts, of RulesEvaluated, the rules whose addrtype
	// match the kernel evaluates (iptables).
	AddrTypeMatches int `json:"addrtype_matches,omitempty"`
	// RecentLookups counts the xt_recent lists the packet's rules look up
	// (iptables; Result.RecentLookups), RecentChecked and RecentSet name
	// them.
	RecentLookups int      `json:"recent_lookups,omitempty"`
	RecentChecked []string `json:"-"`
	RecentSet     []string `json:"-"`
	MapLookups    int      `json:"map_lookups"`
	MaxDeviation  float64  `json:"max_deviation"` // max over endpoints of |p·n − 1|
	NonUniform    bool     `json:"non_uniform"`
	Verdict       string   `json:"verdict"`
	// Notes are the tracer's flags for this service's packet; Undecided the
	// matches it could not decide.
	Notes     []string `json:"notes,omitempty"`
	Undecided []string `json:"undecided,omitempty"`
}

// Report is the whole analysis.
type Report struct {
	Dump     string       `json:"dump"`
	Services []ServiceRow `json:"services"`
	Worst    int          `json:"worst_rules_per_first_packet"`
	Mean     float64      `json:"mean_rules_per_first_packet"`
	// MeanAddrTypes is the mean of the services' AddrTypeMatches.
	MeanAddrTypes float64 `json:"mean_addrtype_matches_per_first_packet,omitempty"`
	P99           int     `json:"p99_rules_per_first_packet"`
	Flagged       int     `json:"non_uniform_services"`
	// Unknown counts the services whose verdict is unknown; WithUndecided
	// those whose trace met a match it could not decide.
	Unknown       int         `json:"unknown_services"`
	WithUndecided int         `json:"services_with_undecided_matches"`
	Endpoints     map[int]int `json:"endpoints_per_service"` // endpoints → services with that many
}

// target is a service destination found in the dump.
type target struct {
	name  string
	pos   int
	dst   netip.AddrPort
	proto string
}

// Analyze traces a first packet from src to every service of the dump.
func Analyze(d *Dump, src netip.Addr, opts Options) (*Report, error) {
	return analyzeTargets(d, src, opts, targetsOf(d))
}

// Sample is Analyze over at most limit of the dump's service destinations,
// evenly spaced in their order (KUBE-SERVICES, or the service-ips map) and
// always with the first and the last: its Mean estimates the mean over all
// of them for a dump too large to trace whole (svclab plan's clusters at
// scale). limit < 2 traces every destination.
func Sample(d *Dump, src netip.Addr, opts Options, limit int) (*Report, error) {
	return analyzeTargets(d, src, opts, evenly(targetsOf(d), limit))
}

// evenly is at most limit of targets, evenly spaced, the first and the
// last among them (all of them when limit < 2 or they are fewer).
func evenly(targets []target, limit int) []target {
	if limit < 2 || len(targets) <= limit {
		return targets
	}
	out := make([]target, limit)
	step := float64(len(targets)-1) / float64(limit-1)
	for i := range out {
		out[i] = targets[int(math.Round(float64(i)*step))]
	}
	return out
}

// analyzeTargets traces a first packet from src to each of targets.
func analyzeTargets(d *Dump, src netip.Addr, opts Options, targets []target) (*Report, error) {
	opts.SkipPaths = true
	tr, err := NewTracer(d, opts)
	if err != nil {
		return nil, err
	}
	rep := &Report{Dump: d.Kind, Endpoints: map[int]int{}}
	for _, t := range targets {
		res, err := tr.Trace(trace.Packet{Src: sourceFor(src, t.dst.Addr()), Dst: t.dst.Addr(), Proto: t.proto, DPort: t.dst.Port(), From: "pod"})
		if err != nil {
			return nil, err
		}
		rep.Services = append(rep.Services, row(t, res))
	}
	rep.summarize()
	return rep, nil
}

// noTarget reports whether there are targets and p's destination is none
// of them (a trace that named no service may still have been stopped on
// its way to one, e.g. by loadBalancerSourceRanges).
func noTarget(targets []target, p trace.Packet) bool {
	for _, t := range targets {
		if t.dst.Addr() == p.Dst && t.dst.Port() == p.DPort && t.proto == p.Proto {
			return false
		}
	}
	return len(targets) > 0
}

// Default clients for services of the family src is not: a pod address
// of each family.
var (
	defaultSrc4 = netip.MustParseAddr("10.244.255.1")
	defaultSrc6 = netip.MustParseAddr("fd00:10:244:ffff::1")
)

// DefaultClient is the pod address a packet to dst comes from when no
// source is given: 10.244.255.1, or fd00:10:244:ffff::1 for IPv6.
func DefaultClient(dst netip.Addr) netip.Addr {
	return sourceFor(defaultSrc4, dst)
}

// sourceFor is src, or the default pod address of dst's family when src
// is of the other family (a dual-stack dump has services of both).
func sourceFor(src, dst netip.Addr) netip.Addr {
	switch {
	case src.Is4() == dst.Is4():
		return src
	case dst.Is4():
		return defaultSrc4
	}
	return defaultSrc6
}

func row(t target, res Result) ServiceRow {
	r := ServiceRow{Service: t.name, Position: t.pos, Destination: t.dst.String(), Protocol: t.proto,
		Endpoints: len(res.Endpoints), RulesEvaluated: res.RulesEvaluated, AddrTypeMatches: res.AddrTypeMatches, MapLookups: res.MapLookups, Verdict: res.Verdict,
		Notes: res.Flags, Undecided: res.Undecided, RecentLookups: res.RecentLookups, RecentChecked: res.RecentChecked, RecentSet: res.RecentSet}
	if r.Service == "" {
		r.Service = res.Service
	}
	n := float64(len(res.Endpoints))
	for _, e := range res.Endpoints {
		p := e.Effective
		if p == 0 {
			p = e.Probability
		}
		r.MaxDeviation = math.Max(r.MaxDeviation, math.Abs(p*n-1))
	}
	r.NonUniform = r.MaxDeviation > deviationLimit
	return r
}

func (rep *Report) summarize() {
	if len(rep.Services) == 0 {
		return
	}
	costs := make([]int, len(rep.Services))
	total, addrTypes := 0, 0
	for i, s := range rep.Services {
		costs[i] = s.RulesEvaluated
		total += s.RulesEvaluated
		addrTypes += s.AddrTypeMatches
		rep.Endpoints[s.Endpoints]++
		if s.NonUniform {
			rep.Flagged++
		}
		if s.Verdict == "unknown" {
			rep.Unknown++
		}
		if len(s.Undecided) > 0 {
			rep.WithUndecided++
		}
	}
	sort.Ints(costs)
	rep.Worst = costs[len(costs)-1]
	rep.Mean = float64(total) / float64(len(costs))
	rep.MeanAddrTypes = float64(addrTypes) / float64(len(costs))
	rep.P99 = costs[min(len(costs)-1, int(math.Ceil(0.99*float64(len(costs))))-1)]
}
