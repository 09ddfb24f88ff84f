package nfttrace

import (
	"fmt"
	"net/netip"

	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/trace"
)

// Trace compiles rs (with no local addresses but loopback) and traces p.
// To trace many packets, Compile once and call Program.Trace.
func Trace(rs *nftables.Ruleset, p trace.Packet) (Result, error) {
	prog, err := Compile(rs, Options{})
	if err != nil {
		return Result{}, err
	}
	return prog.Trace(p)
}

// Trace follows the first packet of a connection through the hooks.
func (p *Program) Trace(pkt trace.Packet) (Result, error) {
	proto, err := protoNumber(pkt.Proto)
	if err != nil {
		return Result{}, fmt.Errorf("trace packet: %w", err)
	}
	pkt.Src, pkt.Dst = pkt.Src.Unmap(), pkt.Dst.Unmap()
	if !pkt.Src.IsValid() || !pkt.Dst.IsValid() || pkt.Src.Is4() != pkt.Dst.Is4() {
		return Result{}, fmt.Errorf("trace packet %s → %s: want two addresses of one family", pkt.Src, pkt.Dst)
	}
	first := "prerouting"
	switch pkt.From {
	case "pod", "":
	case "node":
		first = "output"
	default:
		return Result{}, fmt.Errorf("trace packet: from %q: want pod or node", pkt.From)
	}
	tr := &tracer{p: p, from: pkt.From}
	st := &state{src: pkt.Src, dst: pkt.Dst, proto: proto, dport: pkt.DPort, prob: 1, eff: 1,
		mark: pkt.Mark, givenIn: pkt.InIface, givenOut: pkt.OutIface}
	switch pkt.State {
	case "", "new":
	case "established":
		st.established = true
	default:
		return Result{}, fmt.Errorf("trace packet: state %q: want new or established", pkt.State)
	}
	if err := tr.stage(st, first, 0); err != nil {
		return Result{}, fmt.Errorf("trace %s %s → %s:%d: %w", pkt.Proto, pkt.Src, pkt.Dst, pkt.DPort, err)
	}
	return tr.result(), nil
}

// stage runs base chain idx of hook, then the rest of the packet's way.
func (tr *tracer) stage(st *state, hook string, idx int) error {
	chains := tr.p.hooks[hook]
	if idx >= len(chains) {
		next := tr.nextHook(st, hook)
		if next == "" {
			tr.finish(st, "accept")
			return nil
		}
		return tr.stage(st, next, 0)
	}
	bc := chains[idx]
	if (bc.family == "ip" && !st.src.Is4()) || (bc.family == "ip6" && st.src.Is4()) {
		return tr.stage(st, hook, idx+1) // a table of the other family
	}
	st.hook, st.nat = hook, bc.typ == "nat"
	if st.nat && (st.untracked || st.established || st.looped) {
		return tr.stage(st, hook, idx+1) // conntrack does not consult nat
	}
	st.setIfaces(hook, tr.from == "node", tr.p.isLocal(st.dst))
	if bc.ext != nil {
		return tr.runExternal(st, bc, hook, idx)
	}
	return tr.run(st, []frame{{chain: bc}}, bc.policy, func(st *state, verdict string) error {
		if verdict == "accept" {
			return tr.stage(st, hook, idx+1)
		}
		tr.finish(st, verdict)
		return nil
	})
}

// nextHook is the hook after hook, given where the packet is now headed.
func (tr *tracer) nextHook(st *state, hook string) string {
	local := tr.p.isLocal(st.dst)
	switch hook {
	case "prerouting":
		if local {
			return "input"
		}
		return "forward"
	case "forward":
		return "postrouting"
	case "output":
		return "postrouting"
	case "postrouting":
		if tr.from == "node" && local && !st.looped {
			st.looped = true
			return "prerouting" // back in on lo
		}
	}
	return ""
}

// finish records a branch's outcome.
func (tr *tracer) finish(st *state, verdict string) {
	tr.outcomes = append(tr.outcomes, Outcome{
		Probability: st.prob, Effective: st.eff, Verdict: verdict, Unknown: st.unknown, Endpoint: st.dnat, Masquerade: st.masq,
		Path: st.path, RulesEvaluated: st.rules, MapLookups: st.lookups,
		AffinitySet: st.affSet, AffinityTimeout: st.affExpiry, Service: st.service,
	})
}

// result summarises the outcomes.
func (tr *tracer) result() Result {
	r := Result{Outcomes: tr.outcomes, Affinity: tr.affinity}
	index := make(map[netip.AddrPort]int, len(tr.outcomes))
	for i, o := range tr.outcomes {
		switch {
		case i == 0:
			r.Verdict = o.Verdict
		case o.Verdict == "unknown" || r.Verdict == "unknown":
			r.Verdict = "unknown"
		case o.Verdict != r.Verdict:
			r.Verdict = "mixed"
		}
		if o.Unknown != "" && !contains(r.Undecided, o.Unknown) {
			r.Undecided = append(r.Undecided, o.Unknown)
		}
		r.Masquerade = r.Masquerade || o.Masquerade
		r.RulesEvaluated = max(r.RulesEvaluated, o.RulesEvaluated)
		r.MapLookups = max(r.MapLookups, o.MapLookups)
		if o.Endpoint.IsValid() {
			k := o.Endpoint
			if j, ok := index[k]; ok {
				r.Endpoints[j].Probability += o.Probability
				r.Endpoints[j].Effective += o.Effective
			} else {
				index[k] = len(r.Endpoints)
				r.Endpoints = append(r.Endpoints, Endpoint{Addr: o.Endpoint, Probability: o.Probability, Effective: o.Effective})
			}
		}
	}
	r.Path = commonPrefix(tr.outcomes)
	return r
}

// commonPrefix is the path every outcome shares.
func commonPrefix(outs []Outcome) []Step {
	if len(outs) == 0 {
		return nil
	}
	n := len(outs[0].Path)
	for _, o := range outs[1:] {
		m := 0
		for m < n && m < len(o.Path) && o.Path[m] == outs[0].Path[m] {
			m++
		}
		n = m
	}
	return outs[0].Path[:n]
}
