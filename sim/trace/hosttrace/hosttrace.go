// Package hosttrace traces a packet through a host that has both
// iptables-nft rules and native nftables tables (kube-proxy in iptables
// mode next to an "inet filter" host firewall, say) as one walk: at each
// hook the base chains of both run in priority order. The iptables side is
// read from iptables-nft-save (or ip6tables-nft-save) and walked by
// sim/trace/iptrace, one built-in chain at a time, at the priorities
// iptables-nft registers its tables with (raw -300, mangle -150, nat
// -100 for DNAT and 100 for SNAT, filter 0, security 50); the native side
// is read from `nft list ruleset`, in which the tables iptables-nft made
// are recognised and skipped (the iptables-nft-save dump describes them),
// and walked by sim/trace/nfttrace, which drives the walk.
package hosttrace

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/trace/iptrace"
	"github.com/svclab/svclab/sim/trace/nfttrace"
)

// Options describe the node.
type Options struct {
	LocalAddrs []netip.Addr
	IPSets     ipvs.IPSets // for the iptables side's -m set; nil: unknown
	SkipPath   bool
}

// hookPoints are iptables-nft's base chains: table, chain, nft hook and
// priority (nf_ip_hook_priorities).
var hookPoints = []struct {
	table, chain, hook string
	prio               int
}{
	{"raw", "PREROUTING", "prerouting", -300}, {"raw", "OUTPUT", "output", -300},
	{"mangle", "PREROUTING", "prerouting", -150}, {"mangle", "INPUT", "input", -150},
	{"mangle", "FORWARD", "forward", -150}, {"mangle", "OUTPUT", "output", -150},
	{"mangle", "POSTROUTING", "postrouting", -150},
	{"nat", "PREROUTING", "prerouting", -100}, {"nat", "OUTPUT", "output", -100},
	{"nat", "INPUT", "input", 100}, {"nat", "POSTROUTING", "postrouting", 100},
	{"filter", "INPUT", "input", 0}, {"filter", "FORWARD", "forward", 0}, {"filter", "OUTPUT", "output", 0},
	{"security", "INPUT", "input", 50}, {"security", "FORWARD", "forward", 50}, {"security", "OUTPUT", "output", 50},
}

// Compile builds one program from the iptables-nft rules of one family
// (ipt, family "ip" or "ip6") and the host's nft list ruleset text.
// Skipped lists the nft tables recognised as iptables-nft's.
func Compile(ipt *iptables.Dump, family string, ruleset []byte, opts Options) (prog *nfttrace.Program, skipped []string, err error) {
	if family != "ip" && family != "ip6" {
		return nil, nil, fmt.Errorf("compile host rules: family %q: want ip or ip6", family)
	}
	rest, skipped := StripIPTablesNFT(ruleset)
	rs, err := nftables.Parse(bytes.NewReader(rest))
	if err != nil {
		return nil, nil, fmt.Errorf("parse the nft ruleset (iptables-nft's tables %s left out): %w", strings.Join(skipped, ", "), err)
	}
	tr, err := iptrace.NewIPTablesTracer(ipt, iptrace.Options{LocalAddrs: opts.LocalAddrs, IPSets: opts.IPSets, SkipPaths: opts.SkipPath})
	if err != nil {
		return nil, nil, fmt.Errorf("compile the iptables-nft rules: %w", err)
	}
	var ext []nfttrace.External
	for _, h := range hookPoints {
		if ipt.Table(h.table) == nil || !tr.HasHook(h.table, h.chain) {
			continue // iptables-nft creates a table only when something uses it
		}
		ext = append(ext, nfttrace.External{Hook: h.hook, Priority: h.prio, Family: family, Table: family + " " + h.table,
			Chain: h.chain, NAT: h.table == "nat", Walk: walker(tr, h.table, h.chain, family)})
	}
	prog, err = nfttrace.Compile(rs, nfttrace.Options{LocalAddrs: opts.LocalAddrs, SkipPath: opts.SkipPath, External: ext})
	if err != nil {
		return nil, nil, err
	}
	return prog, skipped, nil
}

// walker adapts the iptables tracer's WalkHook to an External chain.
func walker(tr *iptrace.IPTablesTracer, table, chain, family string) func(nfttrace.ExternalPacket) ([]nfttrace.ExternalOutcome, error) {
	return func(p nfttrace.ExternalPacket) ([]nfttrace.ExternalOutcome, error) {
		outs, err := tr.WalkHook(table, chain, iptrace.HookPacket{Src: p.Src, Dst: p.Dst, Proto: p.Proto, DPort: p.DPort, Mark: p.Mark,
			DNATed: p.DNATed, Untracked: p.Untracked, Established: p.Established, FromHost: p.FromNode, Looped: p.Looped,
			In: p.In, Out: p.Out, InKnown: p.InKnown, OutKnown: p.OutKnown})
		if err != nil {
			return nil, err
		}
		res := make([]nfttrace.ExternalOutcome, 0, len(outs))
		for _, o := range outs {
			x := nfttrace.ExternalOutcome{Prob: o.Prob, Eff: o.Eff, Verdict: strings.ToLower(string(o.Verdict)), Mark: o.Mark,
				Masquerade: o.Masquerade, Untracked: o.Untracked, Rules: o.Rules, Service: o.Service}
			if o.DNATed {
				x.DNAT = netip.AddrPortFrom(o.Dst, o.DPort)
			}
			switch {
			case o.Verdict == iptrace.Unknown:
				x.Unknown = strings.Join(append(o.Notes, o.Undecided...), "; ")
			case len(o.Undecided) > 0:
				// One branch of an undecided match: its outcome rests on an
				// assumption, so it is not a verdict.
				x.Verdict, x.Unknown = "unknown", strings.Join(o.Undecided, "; ")
			}
			for _, s := range o.Path {
				if s.Matched {
					x.Path = append(x.Path, nfttrace.Step{Table: family + " " + s.Table(), Chain: s.Chain(), Index: s.RuleIndex() - 1, Rule: s.Rule()})
				}
			}
			res = append(res, x)
		}
		return res, nil
	}
}

// StripIPTablesNFT removes from an `nft list ruleset` listing the tables
// iptables-nft made (an ip or ip6 table named like an iptables table that
// holds one of its built-in chains) and returns the rest and the tables
// removed ("ip nat").
func StripIPTablesNFT(ruleset []byte) ([]byte, []string) {
	lines := strings.SplitAfter(string(ruleset), "\n")
	var out strings.Builder
	var skipped []string
	for i := 0; i < len(lines); i++ {
		f := strings.Fields(lines[i])
		if len(f) < 3 || f[0] != "table" || (f[1] != "ip" && f[1] != "ip6") || !iptables.KnownTable(f[2]) {
			out.WriteString(lines[i])
			continue
		}
		end := blockEnd(lines, i)
		if !holdsBuiltin(lines[i:end], f[2]) {
			out.WriteString(lines[i])
			continue
		}
		skipped = append(skipped, f[1]+" "+f[2])
		i = end - 1
	}
	return []byte(out.String()), skipped
}

// blockEnd returns the index after the line closing the block opened at
// lines[i] (braces outside quotes counted).
func blockEnd(lines []string, i int) int {
	depth := 0
	for j := i; j < len(lines); j++ {
		quoted := false
		for _, c := range lines[j] {
			switch {
			case c == '"':
				quoted = !quoted
			case quoted:
			case c == '{':
				depth++
			case c == '}':
				depth--
			}
		}
		if depth <= 0 && j > i || depth <= 0 && strings.Contains(lines[j], "}") {
			return j + 1
		}
	}
	return len(lines)
}

func holdsBuiltin(block []string, table string) bool {
	for _, l := range block {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "chain" && iptables.IsBuiltinChain(table, f[1]) {
			return true
		}
	}
	return false
}
