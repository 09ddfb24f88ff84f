package ipvstrace

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/iptrace"
)

// Options describe the node.
type Options struct {
	LocalAddrs []netip.Addr // the node's addresses (the virtual addresses are added)
	IPSets     ipvs.IPSets
	// AddedOrder gives, per virtual server (Service.Key), the order its
	// real servers were added, oldest first. The kernel keeps them newest
	// first, and sh fills its buckets in that order; ipvsadm -Sn sorts
	// them, so without this the sh pick for a source is not known.
	AddedOrder map[string][]netip.AddrPort
}

// Tracer traces packets through an IPVS table and the iptables rules
// around it.
type Tracer struct {
	tab   *ipvs.Table
	ipt   *iptrace.IPTablesTracer // nil without an iptables dump
	sets  ipvs.IPSets
	order map[string][]netip.AddrPort
}

// New compiles the tables; d may be nil (IPVS alone).
func New(tab *ipvs.Table, d *iptables.Dump, opts Options) (*Tracer, error) {
	t := &Tracer{tab: tab, sets: opts.IPSets, order: opts.AddedOrder}
	if d == nil {
		return t, nil
	}
	local := append([]netip.Addr(nil), opts.LocalAddrs...)
	for _, s := range tab.Services {
		if s.Addr.IsValid() {
			local = append(local, s.Addr.Addr()) // bound on kube-ipvs0
		}
	}
	var err error
	if t.ipt, err = iptrace.NewIPTablesTracer(d, iptrace.Options{LocalAddrs: local, IPSets: opts.IPSets}); err != nil {
		return nil, fmt.Errorf("ipvs trace: %w", err)
	}
	return t, nil
}

// Endpoint is a real server and its chance.
type Endpoint struct {
	Addr        netip.AddrPort
	Weight      int
	Probability float64
}

// Result is one traced packet.
type Result struct {
	Service   string // the virtual server, "-t 10.96.0.1:443", "" when none
	Scheduler string
	Endpoints []Endpoint // with Probability > 0 first, in the kernel's list order
	// Verdict is the iptables verdict ("" without an iptables dump).
	Verdict    iptrace.Verdict
	Masquerade bool
	// LoopBack is the real server that is the client itself, which
	// KUBE-LOOP-BACK masquerades (only the connections scheduled to it);
	// invalid when none is.
	LoopBack netip.AddrPort
	IPTables *iptrace.Trace
	Flags    []string
}

// Trace traces p.
func (t *Tracer) Trace(p trace.Packet) (Result, error) {
	var r Result
	mark := p.Mark
	if t.ipt != nil {
		tr, err := t.ipt.Trace(p)
		if err != nil {
			return r, err
		}
		r.IPTables, r.Verdict, r.Masquerade, mark = &tr, tr.Verdict, tr.Masquerade, tr.Mark
		r.Masquerade = r.Masquerade || tr.Mark&0x4000 != 0
		if tr.Verdict != iptrace.Accept {
			r.Flags = append(r.Flags, fmt.Sprintf("iptables gives %s before IPVS sees the packet", tr.Verdict))
			return r, nil
		}
		if p.From == "node" {
			r.Flags = append(r.Flags, "a host process's packet is scheduled by IPVS in OUTPUT, before filter OUTPUT; the iptables verdict shown is for the virtual address")
		}
	}
	svc := t.lookup(p, mark)
	if svc == nil {
		r.Flags = append(r.Flags, "no virtual server for this packet")
		return r, nil
	}
	r.Service, r.Scheduler = svc.Key(), svc.Scheduler
	var err error
	if r.Endpoints, err = schedule(svc, p, t.order[svc.Key()]); err != nil {
		return r, err
	}
	if !slices.ContainsFunc(r.Endpoints, func(e Endpoint) bool { return e.Probability > 0 }) {
		// ip_vs_schedule finds no destination; ip_vs_leave answers
		// ICMP port unreachable and drops the packet
		// (net/netfilter/ipvs/ip_vs_core.c).
		r.Verdict = iptrace.Reject
		r.Flags = append(r.Flags, "the virtual server has no real server: IPVS answers ICMP port unreachable (ip_vs_leave)")
		return r, nil
	}
	if svc.Scheduler == "sh" && t.order[svc.Key()] == nil {
		r.Flags = append(r.Flags, "sh: which real server this source gets depends on the order they were added (the kernel keeps them newest first; "+
			"ipvsadm -Sn sorts them): give Options.AddedOrder for the exact pick; shares shown are each server's buckets")
	}
	r.Flags = append(r.Flags, schedulerNotes(svc)...)
	if ep, ok := t.loopBack(p, r.Endpoints); ok {
		r.LoopBack = ep
		r.Flags = append(r.Flags, "hairpin: the client is its own real server (KUBE-LOOP-BACK), so the packet is masqueraded")
	}
	return r, nil
}

// lookup finds the virtual server as ip_vs_in does: by firewall mark
// when the packet has one, then by protocol, address and port.
func (t *Tracer) lookup(p trace.Packet, mark uint32) *ipvs.Service {
	if mark != 0 {
		for _, s := range t.tab.Services {
			if s.Protocol == "" && s.FWMark == mark {
				return s
			}
		}
	}
	dst := netip.AddrPortFrom(p.Dst.Unmap(), p.DPort)
	for _, s := range t.tab.Services {
		if s.Protocol == p.Proto && s.Addr == dst {
			return s
		}
	}
	return nil
}

// loopBack reports whether a real server is the client itself and the
// KUBE-LOOP-BACK set (dst,dst,src) says so.
func (t *Tracer) loopBack(p trace.Packet, eps []Endpoint) (netip.AddrPort, bool) {
	name := "KUBE-LOOP-BACK"
	if p.Src.Is6() && !p.Src.Is4In6() {
		name = "KUBE-6-LOOP-BACK" // kube-proxy's IPv6 sets are KUBE-6-*
	}
	set := t.sets[name]
	if set == nil {
		return netip.AddrPort{}, false
	}
	proto := map[string]uint8{"tcp": 6, "udp": 17, "sctp": 132}[p.Proto]
	for _, e := range eps {
		if e.Probability == 0 || e.Addr.Addr() != p.Src {
			continue
		}
		in, err := set.Match(t.sets, ipvs.Probe{Src: p.Src, Dst: e.Addr.Addr(), Proto: proto, DPort: e.Addr.Port()}, []string{"dst", "dst", "src"})
		if err == nil && in {
			return e.Addr, true
		}
	}
	return netip.AddrPort{}, false
}
