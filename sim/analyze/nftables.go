package analyze

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/nfttrace"
)

// nftablesTracer is the nftables mode's tracer behind Tracer (also the
// host's tables and iptables-nft's walked as one, see traceHost).
type nftablesTracer struct{ p *nfttrace.Program }

// compileNFTables compiles an nftables ruleset.
func compileNFTables(d *Dump, opts Options) (Tracer, error) {
	p, err := nfttrace.Compile(d.NFT, nfttrace.Options{LocalAddrs: opts.Local, SkipPath: opts.SkipPaths})
	if err != nil {
		return nil, err
	}
	return nftablesTracer{p}, nil
}

// WithPaths shares the compiled rules unless chains another tracer walks
// are hooked in (nfttrace.Program.WithPaths).
func (a nftablesTracer) WithPaths() (Tracer, bool) {
	p, ok := a.p.WithPaths()
	if !ok {
		return nil, false
	}
	return nftablesTracer{p}, true
}

// Trace walks p and reads the nftables trace as a Result: the outcomes'
// endpoints merged, the service named (nftService).
func (a nftablesTracer) Trace(p trace.Packet) (Result, error) {
	tr, err := a.p.Trace(p)
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

// nftablesTargets lists the elements of kube-proxy's service-ips and
// no-endpoint-services maps.
func nftablesTargets(d *Dump) []target {
	var out []target
	for _, t := range d.NFT.Tables {
		if t.Name != "kube-proxy" {
			continue
		}
		for _, name := range []string{"service-ips", "no-endpoint-services"} {
			set := t.Set(name)
			if set == nil {
				continue
			}
			for i, e := range set.Elements {
				if tg, ok := nftTarget(e.Key, e.Value, e.Comment, i+1); ok {
					out = append(out, tg)
				}
			}
		}
	}
	return out
}

func nftTarget(key, value []string, comment string, pos int) (target, bool) {
	if len(key) != 3 {
		return target{}, false
	}
	addr, err := netip.ParseAddr(key[0])
	port, err2 := strconv.ParseUint(key[2], 10, 16)
	if err != nil || err2 != nil {
		return target{}, false
	}
	ap := netip.AddrPortFrom(addr, uint16(port))
	name := comment
	if name == "" && len(value) == 2 {
		// "service-ULMVA6XW-ns1/svc1/tcp/p80" → "ns1/svc1/tcp/p80"
		if parts := strings.SplitN(value[1], "-", 3); len(parts) == 3 {
			name = parts[2]
		}
	}
	return target{name: name, pos: pos, dst: ap, proto: key[1]}, true
}
