package analyze

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/iptrace"
)

// iptablesTracer is the iptables mode's tracer behind Tracer.
type iptablesTracer struct{ t *iptrace.IPTablesTracer }

// compileIPTables compiles an iptables dump.
func compileIPTables(d *Dump, opts Options) (Tracer, error) {
	t, err := iptrace.NewIPTablesTracer(d.IPT, iptrace.Options{LocalAddrs: opts.Local, IPSets: opts.IPSets, SkipPaths: opts.SkipPaths})
	if err != nil {
		return nil, err
	}
	return iptablesTracer{t}, nil
}

// WithPaths shares the compiled rules (iptrace.IPTablesTracer.WithPaths).
func (a iptablesTracer) WithPaths() (Tracer, bool) { return iptablesTracer{a.t.WithPaths()}, true }

// Trace walks p and reads the iptables trace as a Result.
func (a iptablesTracer) Trace(p trace.Packet) (Result, error) {
	tr, err := a.t.Trace(p)
	if err != nil {
		return Result{}, err
	}
	r := Result{Dump: KindIPTables, Packet: describe(p), Service: tr.Service, Verdict: string(tr.Verdict), Masquerade: tr.Masquerade,
		RulesEvaluated: tr.RulesEvaluated, AddrTypeMatches: tr.AddrTypesEvaluated, Flags: tr.Flags, Undecided: tr.Undecided,
		RecentLookups: recentLookups(tr.RecentChecked, tr.RecentSet), RecentChecked: tr.RecentChecked, RecentSet: tr.RecentSet}
	for _, e := range tr.Endpoints {
		r.Endpoints = append(r.Endpoints, Endpoint{Endpoint: e.Endpoint.String(), Probability: e.Probability, Effective: e.Effective,
			Verdict: string(e.Verdict), Masquerade: e.Masquerade, Rules: e.RulesEvaluated})
	}
	for _, s := range tr.Path {
		r.Path = append(r.Path, fmt.Sprintf("%s %s #%d %s %s", s.Table(), s.Chain(), s.RuleIndex(), matched(s.Matched), clipRule(s.Rule())))
	}
	return r, nil
}

// iptablesTargets lists the ClusterIP (and external IP) rules of nat
// KUBE-SERVICES, and the REJECT rules of filter KUBE-SERVICES for services
// without endpoints, in chain order.
func iptablesTargets(d *iptables.Dump) []target {
	var out []target
	for _, table := range []string{"nat", "filter"} {
		for _, t := range d.Tables {
			if t.Name != table {
				continue
			}
			for _, c := range t.Chains {
				if c.Name != "KUBE-SERVICES" {
					continue
				}
				for i, r := range c.Rules {
					if tg, ok := serviceRule(r, i+1); ok && (table == "nat" || r.Target == "REJECT") {
						out = append(out, tg)
					}
				}
			}
		}
	}
	return out
}

func serviceRule(r *iptables.Rule, pos int) (target, bool) {
	if !r.Destination.Set || r.Destination.Negated || !r.DestPort.Set || !r.Protocol.Set || !r.Destination.Prefix.IsSingleIP() {
		return target{}, false
	}
	return target{name: iptables.ServiceName(r.Comment), pos: pos,
		dst: netip.AddrPortFrom(r.Destination.Prefix.Addr(), r.DestPort.Lo), proto: r.Protocol.Name}, true
}

// recentLookups is how many xt_recent lists a first packet looks up: each
// checked list, then one --set (the endpoint's the packet goes to).
func recentLookups(checked, set []string) int {
	if len(set) > 0 {
		return len(checked) + 1
	}
	return len(checked)
}
