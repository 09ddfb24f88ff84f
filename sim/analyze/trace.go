package analyze

import (
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"

	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/iptrace"
	"github.com/svclab/svclab/sim/trace/ipvstrace"
	"github.com/svclab/svclab/sim/trace/nfttrace"
)

// Options are what the user knows about the node, for matches the rules
// alone cannot decide.
type Options struct {
	Local     []netip.Addr // the node's addresses
	IPSets    ipvs.IPSets  // `ipset save`; nil when not given
	SkipPaths bool         // drop the rule-by-rule path, for bulk use
}

// Endpoint is a reachable endpoint and its probability.
type Endpoint struct {
	Endpoint    string  `json:"endpoint"`             // "IP:port"
	Probability float64 `json:"probability"`          // as the rules write it
	Effective   float64 `json:"effective"`            // as the kernel applies it
	Verdict     string  `json:"verdict,omitempty"`    // after the filter chains
	Masquerade  bool    `json:"masquerade,omitempty"` // SNAT on the way out
	Rules       int     `json:"rules_evaluated"`      // on this branch
}

// Result is one traced packet, the same shape for both kinds of dump.
type Result struct {
	Dump           string     `json:"dump"` // iptables or nftables
	Packet         string     `json:"packet"`
	Service        string     `json:"service"` // "ns/name:port", "" when no service matched
	Verdict        string     `json:"verdict"`
	Masquerade     bool       `json:"masquerade"`
	Endpoints      []Endpoint `json:"endpoints"`
	RulesEvaluated int        `json:"rules_evaluated"`
	MapLookups     int        `json:"map_lookups"`
	Path           []string   `json:"path,omitempty"`
	Flags          []string   `json:"flags,omitempty"`
	// Undecided lists the matches the tracer could not decide; with
	// verdict "unknown" their branches lead to different outcomes.
	Undecided []string `json:"undecided,omitempty"`
	// NoService is set when the dump has Services (kube-proxy's rules)
	// and the packet's destination matched none of them (a typo?). A dump
	// without Services (a host firewall) never sets it.
	NoService bool `json:"no_service,omitempty"`
}

// Tracer traces packets through one dump; build it once for many packets.
type Tracer struct {
	kind string
	ipt  *iptrace.IPTablesTracer
	nft  *nfttrace.Program
	ipvs *ipvstrace.Tracer
}

// NewTracer compiles the dump.
func NewTracer(d *Dump, opts Options) (*Tracer, error) {
	t := &Tracer{kind: d.Kind}
	var err error
	switch d.Kind {
	case KindIPTables:
		t.ipt, err = iptrace.NewIPTablesTracer(d.IPT, iptrace.Options{LocalAddrs: opts.Local, IPSets: opts.IPSets, SkipPaths: opts.SkipPaths})
	case KindNFTables:
		t.nft, err = nfttrace.Compile(d.NFT, nfttrace.Options{LocalAddrs: opts.Local, SkipPath: opts.SkipPaths})
	case KindIPVS:
		t.ipvs, err = newIPVSTracer(d, opts)
	default:
		err = fmt.Errorf("unknown dump kind %q", d.Kind)
	}
	if err != nil {
		return nil, &DumpError{Err: err} // what the tracer refuses is in the dump
	}
	return t, nil
}

// WithPaths returns a tracer over the same compiled rules that keeps
// each trace's rule-by-rule path, whatever Options.SkipPaths said, and
// true; false when the rules cannot be shared (an nftables ruleset with
// chains another tracer walks): compile them again with paths then.
func (t *Tracer) WithPaths() (*Tracer, bool) {
	w := *t
	switch {
	case t.ipt != nil:
		w.ipt = t.ipt.WithPaths()
	case t.nft != nil:
		nft, ok := t.nft.WithPaths()
		if !ok {
			return nil, false
		}
		w.nft = nft
	} // the IPVS tracer keeps its paths always
	return &w, true
}

// Trace walks one packet.
func (t *Tracer) Trace(p trace.Packet) (Result, error) {
	if t.ipt != nil {
		return t.traceIPTables(p)
	}
	if t.ipvs != nil {
		return t.traceIPVS(p)
	}
	return t.traceNFTables(p)
}

func (t *Tracer) traceIPTables(p trace.Packet) (Result, error) {
	tr, err := t.ipt.Trace(p)
	if err != nil {
		return Result{}, err
	}
	r := Result{Dump: KindIPTables, Packet: describe(p), Service: tr.Service, Verdict: string(tr.Verdict), Masquerade: tr.Masquerade,
		RulesEvaluated: tr.RulesEvaluated, Flags: tr.Flags, Undecided: tr.Undecided}
	for _, e := range tr.Endpoints {
		r.Endpoints = append(r.Endpoints, Endpoint{Endpoint: e.Endpoint.String(), Probability: e.Probability, Effective: e.Effective,
			Verdict: string(e.Verdict), Masquerade: e.Masquerade, Rules: e.RulesEvaluated})
	}
	for _, s := range tr.Path {
		r.Path = append(r.Path, fmt.Sprintf("%s %s #%d %s %s", s.Table(), s.Chain(), s.RuleIndex(), matched(s.Matched), clipRule(s.Rule())))
	}
	return r, nil
}

func (t *Tracer) traceNFTables(p trace.Packet) (Result, error) {
	tr, err := t.nft.Trace(p)
	if err != nil {
		return Result{}, err
	}
	r := Result{Dump: KindNFTables, Packet: describe(p), Verdict: strings.ToUpper(tr.Verdict), Masquerade: tr.Masquerade,
		RulesEvaluated: tr.RulesEvaluated, MapLookups: tr.MapLookups, Undecided: tr.Undecided}
	if tr.Verdict == "unknown" {
		r.Verdict = "unknown"
	}
	if tr.Affinity != "" {
		r.Flags = append(r.Flags, tr.Affinity)
	}
	for _, o := range tr.Outcomes {
		if o.Endpoint.IsValid() {
			r.Endpoints = append(r.Endpoints, Endpoint{Endpoint: o.Endpoint.String(), Probability: o.Probability, Effective: o.Effective,
				Verdict: strings.ToUpper(o.Verdict), Masquerade: o.Masquerade, Rules: o.RulesEvaluated})
		}
	}
	r.Endpoints = mergeEndpoints(r.Endpoints)
	r.Service = nftService(tr)
	for _, s := range tr.Path {
		r.Path = append(r.Path, fmt.Sprintf("%s %s #%d %s  [%s]", s.Hook, s.Chain, s.Index+1, clipRule(s.Rule), clipRule(s.Note)))
	}
	return r, nil
}

// mergeEndpoints sums outcomes that reach the same endpoint.
func mergeEndpoints(in []Endpoint) []Endpoint {
	var out []Endpoint
	index := map[string]int{}
	for _, e := range in {
		if i, ok := index[e.Endpoint]; ok {
			out[i].Probability += e.Probability
			out[i].Effective += e.Effective
			continue
		}
		index[e.Endpoint] = len(out)
		out = append(out, e)
	}
	return out
}

// maxRuleText is the longest rule text a path quotes whole: a dump's
// comments can be megabytes long, and a trace prints a line per rule.
const maxRuleText = 1024

// clipRule is rule text for a path line: at most maxRuleText bytes (cut at
// a character boundary), then how long it was.
func clipRule(s string) string {
	if len(s) <= maxRuleText {
		return s
	}
	cut := maxRuleText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

func matched(m bool) string {
	if m {
		return "MATCH"
	}
	return "-    "
}

func describe(p trace.Packet) string {
	from := p.From
	if from == "" {
		from = "pod"
	}
	return fmt.Sprintf("%s %s → %s from %s", p.Proto, p.Src, netip.AddrPortFrom(p.Dst, p.DPort), from)
}

// nftService names the service: as an iptables-nft walk on the way named
// it, or from kube-proxy's chain names, "service-HASH-ns/name/proto/port"
// (or external-): "ns/name:port".
func nftService(tr nfttrace.Result) string {
	for _, o := range tr.Outcomes {
		if o.Service != "" {
			return o.Service
		}
	}
	paths := [][]nfttrace.Step{tr.Path}
	for _, o := range tr.Outcomes {
		paths = append(paths, o.Path)
	}
	for _, path := range paths {
		for _, s := range path {
			for _, prefix := range []string{"service-", "external-"} {
				rest, ok := strings.CutPrefix(s.Chain, prefix)
				if !ok {
					continue
				}
				_, name, _ := strings.Cut(rest, "-")
				if f := strings.Split(name, "/"); len(f) == 4 {
					return f[0] + "/" + f[1] + ":" + f[3]
				}
			}
		}
	}
	return ""
}
