package iptrace

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/iptables"
)

// compiledRule is a rule with its matches pre-parsed for fast evaluation.
// It holds what a kube-proxy service, endpoint or jump rule needs on every
// visit in one 64-byte cache line: a 10,000-service dump does not fit in
// the cache, and each packet visits a random service's rules. checks says
// which matches the rule has, so a bare jump is decided by one load. The
// rest is behind ruleExtra (promoted fields), read only by rules that use
// it (on a kube-proxy node those are the few rules every packet crosses).
type compiledRule struct {
	checks   uint16
	flags    ruleFlags
	target   targetKind
	proto    uint8  // -p (flagProtoAny: "all")
	dnatPort uint16 // DNAT destination port (0 keeps the port)
	chain    int32  // jump or goto target
	// -d and -s for IPv4 (flagDstV4, flagSrcV4) as a masked compare;
	// IPv6 prefixes are in dst.v6 and src.v6.
	dstAddr, dstMask uint32
	srcAddr, srcMask uint32
	dportLo, dportHi uint16
	// service is 1 + the index in the nat table's services of the service
	// port a nat KUBE-SERVICES/KUBE-NODEPORTS jump names, 0 if none.
	service int32
	// tgtA is the target's value: an IPv4 DNAT destination (with
	// flagDNATv4), or MARK's xor value (the mark becomes (mark &^ markM) ^ tgtA).
	tgtA uint32
	// -m statistic --mode random: the probability the kernel applies
	// (negation included) and as written.
	statEff, statNominal float64
	*ruleExtra
}

// ruleFlags are the bits of compiledRule.flags.
type ruleFlags uint16

const (
	flagDstNeg ruleFlags = 1 << iota
	flagDstV4
	flagSrcNeg
	flagSrcV4
	flagProtoNeg
	flagProtoAny
	flagDPortNeg
	flagStatRandom
	flagDNATv4
)

// ruleExtra is the part of a compiled rule most rules do not use; the
// tracer allocates them in one slab in rule order.
type ruleExtra struct {
	dst, src     addrMatch // as compiled; dst6 and src6 for IPv6
	sport        portMatch
	ct           ctMatch
	mark         markMatch
	markM        uint32 // MARK's mask
	fragmentOnly bool   // "-f": only non-first fragments, never a first packet
	addrType     addrTypeMatch
	recent       recentMatch
	in, out      ifaceMatch
	sets         []setMatch
	multiports   []iptables.MultiPortMatch
	tcpFlags     *tcpFlagsMatch
	// Further instances of modules loaded more than once.
	moreMarks     []markMatch
	moreAddrTypes []addrTypeMatch
	moreCT        []ctMatch
	ctText        string // the --ctstate states as written
	// undecidable names a match the tracer can never evaluate ("" if
	// none); such a rule forks the walk (see forkUndecided).
	undecidable string

	dnat        netip.AddrPort // DNAT destination (port 0 keeps the port)
	name        string         // target name, for flags
	serviceName string         // service port named by a nat KUBE-SERVICES/KUBE-NODEPORTS jump

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
	if cr.ruleExtra == nil {
		cr.ruleExtra = new(ruleExtra)
	}
	cr.src0 = r
	cr.src = compileAddr(r.Source)
	cr.dst = compileAddr(r.Destination)
	var why []string
	var proto protoMatch
	proto, why = compileProto(r.Protocol, why)
	cr.sport = compilePort(r.SourcePort)
	dport := compilePort(r.DestPort)
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
	if r.CTState != nil {
		cr.ctText = strings.Join(r.CTState.States, ",")
	}
	cr.recent = compileRecent(r.Recent)
	var stat statMatch
	stat, why = compileStatistic(r.Statistic, why)
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
	cr.checks = cr.checkBits(proto.set, dport.set)
	cr.setHot(proto, dport, stat)
	return nil
}

// setHot fills the rule's hot fields from the compiled matches.
func (cr *compiledRule) setHot(proto protoMatch, dport portMatch, stat statMatch) {
	for _, f := range []struct {
		on  bool
		bit ruleFlags
	}{
		{cr.dst.neg, flagDstNeg}, {cr.dst.v4, flagDstV4}, {cr.src.neg, flagSrcNeg}, {cr.src.v4, flagSrcV4},
		{proto.neg, flagProtoNeg}, {proto.any, flagProtoAny}, {dport.neg, flagDPortNeg}, {stat.random, flagStatRandom},
	} {
		if f.on {
			cr.flags |= f.bit
		}
	}
	cr.dstAddr, cr.dstMask = cr.dst.addr, cr.dst.mask
	cr.srcAddr, cr.srcMask = cr.src.addr, cr.src.mask
	cr.proto, cr.dportLo, cr.dportHi = proto.num, dport.lo, dport.hi
	cr.statEff, cr.statNominal = stat.effective, stat.nominal
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

func (cr *compiledRule) checkBits(proto, dport bool) uint16 {
	var c uint16
	for _, b := range []struct {
		on  bool
		bit uint16
	}{
		{cr.dst.set, checkDst}, {cr.src.set, checkSrc}, {proto, checkProto},
		{dport, checkDPort}, {cr.sport.set, checkSPort}, {cr.mark.set, checkMark},
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
			if a := r.NAT.Addr.Addr(); a.Is4() {
				cr.tgtA, cr.flags = addr4(a), cr.flags|flagDNATv4
			}
			cr.dnatPort = r.NAT.Addr.Port()
		}
	case "MASQUERADE", "SNAT":
		cr.target = targetMasquerade
	case "MARK":
		cr.target = targetMark
		cr.tgtA, cr.markM = r.SetMark.XMark()
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
			cr.serviceName = first
			cr.service = ct.service(first)
		}
	}
}
