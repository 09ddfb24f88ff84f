package iptrace

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/iptables"
)

// compiledRule is a rule with its matches pre-parsed for fast evaluation.
// The fields read on every visit come first, to share cache lines; checks
// says which matches the rule has, so a bare jump is decided by one load.
type compiledRule struct {
	checks       uint16
	target       targetKind
	fragmentOnly bool  // "-f": only non-first fragments, never a first packet
	chain        int32 // jump or goto target
	dst, src     addrMatch
	proto        protoMatch
	dport, sport portMatch
	ct           ctMatch
	addrType     addrTypeMatch
	mark         markMatch
	recent       recentMatch
	stat         statMatch
	in, out      ifaceMatch
	sets         []setMatch
	multiports   []iptables.MultiPortMatch
	tcpFlags     *tcpFlagsMatch
	// Further instances of modules loaded more than once.
	moreMarks     []markMatch
	moreAddrTypes []addrTypeMatch
	moreCT        []ctMatch
	// undecidable names a match the tracer can never evaluate ("" if
	// none); such a rule forks the walk (see forkUndecided).
	undecidable string

	dnat    netip.AddrPort // DNAT destination (port 0 keeps the port)
	markV   uint32         // MARK as (mark &^ markM) ^ markV
	markM   uint32
	name    string // target name, for flags
	service string // service port named by a nat KUBE-SERVICES/KUBE-NODEPORTS jump

	src0 *iptables.Rule
}

type targetKind uint8

const (
	targetNone targetKind = iota
	targetJump
	targetGoto
	targetMissingChain
	targetAccept
	targetDrop
	targetReject
	targetReturn
	targetDNAT
	targetMasquerade // MASQUERADE or SNAT
	targetMark
	targetContinue // a non-terminating extension such as LOG
	targetNotrack  // CT --notrack or NOTRACK (raw): the packet is untracked
	targetUnmodelled
)

// nonTerminating are target extensions after which the kernel continues
// with the next rule.
var nonTerminating = map[string]bool{
	"LOG": true, "NFLOG": true, "ULOG": true, "TRACE": true, "CONNMARK": true, "CT": true,
	"NOTRACK": true, "CHECKSUM": true, "TCPMSS": true, "DSCP": true, "TOS": true, "TTL": true,
	"CLASSIFY": true, "SET": true, "AUDIT": true, "SECMARK": true, "CONNSECMARK": true,
	"IDLETIMER": true, "LED": true, "RATEEST": true, "HMARK": true,
}

// compileRule fills cr from r; jump targets are resolved in ct.
func compileRule(cr *compiledRule, r *iptables.Rule, ct *compiledTable) error {
	cr.src0 = r
	cr.src = compileAddr(r.Source)
	cr.dst = compileAddr(r.Destination)
	var why []string
	cr.proto, why = compileProto(r.Protocol, why)
	cr.sport = compilePort(r.SourcePort)
	cr.dport = compilePort(r.DestPort)
	cr.addrType, why = compileAddrType(r.AddrType, why)
	if m := r.Mark; m != nil {
		cr.mark = markMatch{set: true, neg: m.Negated, value: m.Value, mask: m.Mask}
	}
	for _, m := range r.EarlierMarks {
		cr.moreMarks = append(cr.moreMarks, markMatch{set: true, neg: m.Negated, value: m.Value, mask: m.Mask})
	}
	for i := range r.EarlierAddrTypes {
		var a addrTypeMatch
		a, why = compileAddrType(&r.EarlierAddrTypes[i], why)
		cr.moreAddrTypes = append(cr.moreAddrTypes, a)
	}
	for i := range r.EarlierCTStates {
		cr.moreCT = append(cr.moreCT, compileCTState(&r.EarlierCTStates[i]))
	}
	cr.ct = compileCTState(r.CTState)
	cr.recent = compileRecent(r.Recent)
	cr.stat, why = compileStatistic(r.Statistic, why)
	cr.in = compileIface(r.InIface)
	cr.out = compileIface(r.OutIface)
	for _, m := range r.MatchSets {
		cr.sets = append(cr.sets, setMatch{name: m.Name, flags: m.Flags, neg: m.Negated})
	}
	cr.multiports = r.MultiPorts
	for _, u := range r.Unknown {
		if u.Module == "" && u.Option == "-f" && !u.Negated {
			cr.fragmentOnly = true
		}
	}
	cr.tcpFlags = compileTCPFlags(r)
	why = undecidableParts(r, why)
	cr.undecidable = strings.Join(why, ", ")
	compileTarget(cr, r, ct)
	cr.checks = cr.checkBits()
	return nil
}

// Bits of compiledRule.checks.
const (
	checkDst uint16 = 1 << iota
	checkSrc
	checkProto
	checkDPort
	checkSPort
	checkMark
	checkCT
	checkFragment
	checkAddrType
	checkRecent
	checkUndecidable
	checkIface
	checkSet
	checkMultiport
	checkTCPFlags
	checkMore
)

func (cr *compiledRule) checkBits() uint16 {
	var c uint16
	for _, b := range []struct {
		on  bool
		bit uint16
	}{
		{cr.dst.set, checkDst}, {cr.src.set, checkSrc}, {cr.proto.set, checkProto},
		{cr.dport.set, checkDPort}, {cr.sport.set, checkSPort}, {cr.mark.set, checkMark},
		{cr.ct.set, checkCT}, {cr.fragmentOnly, checkFragment},
		{cr.addrType.srcSet || cr.addrType.dstSet, checkAddrType},
		{cr.recent.kind != recentNone, checkRecent}, {cr.undecidable != "", checkUndecidable},
		{cr.in.set || cr.out.set, checkIface}, {len(cr.sets) > 0, checkSet},
		{len(cr.multiports) > 0, checkMultiport}, {cr.tcpFlags != nil, checkTCPFlags},
		{len(cr.moreMarks)+len(cr.moreAddrTypes)+len(cr.moreCT) > 0, checkMore},
	} {
		if b.on {
			c |= b.bit
		}
	}
	return c
}

// undecidableParts lists the matches of r the tracer can never evaluate.
func undecidableParts(r *iptables.Rule, why []string) []string {
	for _, u := range r.Unknown {
		if u.Module == "" && u.Option == "-f" {
			continue // see compileRule: decided for a first packet
		}
		if u.Module == "tcp" && (u.Option == "--syn" || u.Option == "--tcp-flags") {
			continue // see compileTCPFlags
		}
		why = append(why, strings.TrimSpace(strings.Join(append([]string{"-m " + u.Module, negWord(u.Negated) + u.Option}, u.Args...), " ")))
	}
	return why
}

func negWord(neg bool) string {
	if neg {
		return "! "
	}
	return ""
}

func compileTarget(cr *compiledRule, r *iptables.Rule, ct *compiledTable) {
	cr.name = r.Target
	switch r.Target {
	case "":
		cr.target = targetNone
	case "ACCEPT":
		cr.target = targetAccept
	case "DROP":
		cr.target = targetDrop
	case "REJECT":
		cr.target = targetReject
	case "RETURN":
		cr.target = targetReturn
	case "DNAT":
		cr.target = targetUnmodelled
		if r.NAT != nil && r.NAT.Addr.IsValid() {
			cr.target, cr.dnat = targetDNAT, r.NAT.Addr
		}
	case "MASQUERADE", "SNAT":
		cr.target = targetMasquerade
	case "MARK":
		cr.target = targetMark
		cr.markV, cr.markM = r.SetMark.XMark()
	default:
		compileJump(cr, r, ct)
	}
}

func compileJump(cr *compiledRule, r *iptables.Rule, ct *compiledTable) {
	switch {
	case r.Target == "NOTRACK" || (r.Target == "CT" && slices.Contains(r.TargetArgs, "--notrack")):
		cr.target = targetNotrack
		return
	case nonTerminating[r.Target]:
		cr.target = targetContinue
		return
	case iptables.IsTargetExtension(r.Target):
		cr.target = targetUnmodelled
		return
	}
	cr.chain = ct.chain(r.Target)
	switch {
	case cr.chain < 0:
		cr.target = targetMissingChain
	case r.Goto:
		cr.target = targetGoto
	default:
		cr.target = targetJump
	}
	if ct.name == "nat" && (r.Chain == "KUBE-SERVICES" || r.Chain == "KUBE-NODEPORTS") && r.HasComment {
		// "ns1/svc1:p80 cluster IP" names a service port; the nodeports
		// rule's "kubernetes service nodeports; ..." does not.
		if first, _, _ := strings.Cut(r.Comment, " "); strings.Contains(first, "/") {
			cr.service = first
		}
	}
}
