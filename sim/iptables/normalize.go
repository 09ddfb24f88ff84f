package iptables

import (
	"fmt"
	"slices"
	"strings"
)

// Normalize returns r as one canonical line, so that a rule written as
// iptables-restore input and the same rule printed back by iptables-save
// (legacy or nft) give the same string. The normal form:
//   - puts matches in a fixed order: first what the parser does not model
//     (stray words, then unknown options in their original order, so that
//     no modelled module can claim them when the normal form is parsed
//     again), then -s, -d, -i, -o, -p, ports, addrtype, comment,
//     conntrack, mark, nfacct, recent, set, statistic, then the target;
//   - drops "/32" ("/128") from host addresses and the bare "-m tcp";
//   - writes the statistic probability as the kernel stores it
//     (KernelProbability), with 11 decimals as iptables-save does: rounding
//     the text to 10 decimals would not do, since "0.3333333333" comes back
//     as "0.33333333349";
//   - writes every MARK target as --set-xmark value/mask (what the kernel
//     keeps and iptables-save prints);
//   - leaves out defaults: recent's --mask 255.255.255.255 and --rsource,
//     REJECT's --reject-with icmp-port-unreachable, a mark mask of
//     0xffffffff;
//   - ignores counters.
func Normalize(r *Rule) string {
	n := normWriter{}
	n.add("-A", r.Chain)
	n.unknown(r.Unknown)
	n.addr("-s", r.Source)
	n.addr("-d", r.Destination)
	n.iface("-i", r.InIface)
	n.iface("-o", r.OutIface)
	if r.Protocol.Set {
		n.neg(r.Protocol.Negated, "-p", r.Protocol.Name)
	}
	n.ports(r)
	n.addrType(r.AddrType)
	for _, c := range r.Comments {
		n.add("-m", "comment", "--comment", c)
	}
	n.ctState(r.CTState)
	if m := r.Mark; m != nil {
		n.add("-m", "mark")
		n.neg(m.Negated, "--mark", markText(m.Value, m.Mask))
	}
	if r.NFAcctName != "" {
		n.add("-m", "nfacct", "--nfacct-name", r.NFAcctName)
	}
	n.recent(r.Recent)
	if s := r.MatchSet; s != nil {
		n.add("-m", "set")
		n.neg(s.Negated, "--match-set", s.Name, strings.Join(s.Flags, ","))
	}
	n.statistic(r.Statistic)
	n.target(r)
	return JoinWords(n.words)
}

// normWriter collects the words of a normalised rule.
type normWriter struct{ words []string }

func (n *normWriter) add(w ...string) { n.words = append(n.words, w...) }

func (n *normWriter) neg(negated bool, w ...string) {
	if negated {
		n.words = append(n.words, "!")
	}
	n.words = append(n.words, w...)
}

func (n *normWriter) addr(opt string, m AddrMatch) {
	if !m.Set {
		return
	}
	text := m.Prefix.String()
	if m.Prefix.IsSingleIP() {
		text = m.Prefix.Addr().String()
	}
	n.neg(m.Negated, opt, text)
}

func (n *normWriter) iface(opt string, m IfaceMatch) {
	if m.Set {
		n.neg(m.Negated, opt, m.Name)
	}
}

func (n *normWriter) ports(r *Rule) {
	if !r.SourcePort.Set && !r.DestPort.Set {
		return
	}
	module := r.Protocol.Name
	if _, ok := matchOptions[module]["--dport"]; !ok {
		for _, m := range r.Modules {
			if _, ok := matchOptions[m]["--dport"]; ok {
				module = m
			}
		}
	}
	n.add("-m", module)
	for _, p := range []struct {
		opt string
		m   PortMatch
	}{{"--sport", r.SourcePort}, {"--dport", r.DestPort}} {
		if p.m.Set {
			n.neg(p.m.Negated, p.opt, portText(p.m))
		}
	}
}

func portText(p PortMatch) string {
	if p.Lo == p.Hi {
		return fmt.Sprint(p.Lo)
	}
	return fmt.Sprintf("%d:%d", p.Lo, p.Hi)
}

func markText(value, mask uint32) string {
	if mask == 0xffffffff {
		return fmt.Sprintf("0x%x", value)
	}
	return fmt.Sprintf("0x%x/0x%x", value, mask)
}

func (n *normWriter) addrType(m *AddrTypeMatch) {
	if m == nil {
		return
	}
	n.add("-m", "addrtype")
	if m.SrcType != "" {
		n.neg(m.SrcNegated, "--src-type", m.SrcType)
	}
	if m.DstType != "" {
		n.neg(m.DstNegated, "--dst-type", m.DstType)
	}
	if m.LimitIfaceIn {
		n.add("--limit-iface-in")
	}
	if m.LimitIfaceOut {
		n.add("--limit-iface-out")
	}
}

func (n *normWriter) ctState(m *CTStateMatch) {
	if m == nil {
		return
	}
	states := slices.Clone(m.States)
	slices.Sort(states)
	n.add("-m", "conntrack")
	n.neg(m.Negated, "--ctstate", strings.Join(states, ","))
}

func (n *normWriter) recent(m *RecentMatch) {
	if m == nil {
		return
	}
	n.add("-m", "recent")
	if m.Negated {
		n.add("!")
	}
	for _, f := range []struct {
		on   bool
		word string
	}{{m.Set, "--set"}, {m.Check, "--rcheck"}, {m.Update, "--update"}, {m.Remove, "--remove"}} {
		if f.on {
			n.add(f.word)
		}
	}
	if m.Seconds != 0 {
		n.add("--seconds", fmt.Sprint(m.Seconds))
	}
	if m.Reap {
		n.add("--reap")
	}
	if m.HitCount != 0 {
		n.add("--hitcount", fmt.Sprint(m.HitCount))
	}
	if m.TTL {
		n.add("--rttl")
	}
	n.add("--name", m.Name)
	if m.Mask != "" && m.Mask != "255.255.255.255" && m.Mask != "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" {
		n.add("--mask", m.Mask)
	}
	if m.Dest {
		n.add("--rdest")
	}
}

func (n *normWriter) statistic(s *StatisticMatch) {
	if s == nil {
		return
	}
	n.add("-m", "statistic", "--mode", s.Mode)
	if s.Mode == "nth" {
		n.neg(s.Negated, "--every", fmt.Sprint(s.Every))
		if s.Packet != 0 {
			n.add("--packet", fmt.Sprint(s.Packet))
		}
		return
	}
	fixed := KernelProbability(s.ProbabilityValue)
	n.neg(s.Negated, "--probability", fmt.Sprintf("%.11f", float64(fixed)/probabilityScale))
}

// unknown writes unmodelled matches: first the stray words (so that no
// option before them can take them as arguments when the normal form is
// parsed again), then the options in order, each preceded by "-m MODULE"
// when it belongs to a module other than the previous one's.
func (n *normWriter) unknown(ms []UnknownMatch) {
	for _, u := range ms {
		if u.Module == "" && u.Option == "" {
			n.neg(u.Negated, u.Args...)
		}
	}
	prev := ""
	for _, u := range ms {
		if u.Module == "" && u.Option == "" {
			continue
		}
		if u.Module != "" && (u.Module != prev || u.Option == "") {
			n.add("-m", u.Module)
		}
		prev = u.Module
		if u.Option != "" {
			n.neg(u.Negated, u.Option)
			n.add(u.Args...)
		}
	}
}

func (n *normWriter) target(r *Rule) {
	if r.Target == "" {
		return
	}
	jump := "-j"
	if r.Goto {
		jump = "-g"
	}
	n.add(jump, r.Target)
	switch {
	case r.SetMark != nil:
		v, m := r.SetMark.XMark()
		n.add("--set-xmark", fmt.Sprintf("0x%x/0x%x", v, m))
	case r.NAT != nil:
		n.natArgs(r)
	case r.Target == "REJECT":
		if w := r.RejectWith; w != "" && w != "icmp-port-unreachable" && w != "icmp6-port-unreachable" {
			n.add("--reject-with", w)
		}
	default:
		n.add(r.TargetArgs...)
	}
}

func (n *normWriter) natArgs(r *Rule) {
	opt := "--to-destination"
	if r.Target == "SNAT" {
		opt = "--to-source"
	}
	to := r.NAT.To
	if a := r.NAT.Addr; a.IsValid() {
		to = a.Addr().String()
		if a.Port() != 0 {
			to = a.String()
		}
	}
	if to != "" {
		n.add(opt, to)
	}
	for _, f := range []struct {
		on   bool
		word string
	}{{r.NAT.Random, "--random"}, {r.NAT.RandomFully, "--random-fully"}, {r.NAT.Persistent, "--persistent"}} {
		if f.on {
			n.add(f.word)
		}
	}
}
