package iptables

import (
	"net/netip"
)

// Rule is one "-A CHAIN ..." line. Words keeps the rule's words (after
// "-A CHAIN", unquoted) in their original order so nothing is lost; the other
// fields are the parsed meaning of those words.
type Rule struct {
	Chain    string
	Words    []string
	Counters *Counters // "[p:b] -A ..." or "-c p b"; nil if absent
	Line     int       // source line, 0 if parsed from a lone string

	Source      AddrMatch // -s
	Destination AddrMatch // -d
	InIface     IfaceMatch
	OutIface    IfaceMatch
	Protocol    ProtoMatch // -p
	SourcePort  PortMatch  // --sport of tcp/udp/sctp
	DestPort    PortMatch  // --dport of tcp/udp/sctp
	Comment     string     // -m comment --comment (the first one)
	HasComment  bool
	Comments    []string // every comment, in order (a rule may have several)
	Statistic   *StatisticMatch
	Recent      *RecentMatch
	AddrType    *AddrTypeMatch
	Mark        *MarkMatch
	CTState     *CTStateMatch
	// EarlierMarks, EarlierAddrTypes and EarlierCTStates are the earlier
	// instances of a module the rule loads more than once ("-m mark --mark
	// A -m mark --mark B"); Mark, AddrType and CTState hold the last one.
	EarlierMarks     []MarkMatch
	EarlierAddrTypes []AddrTypeMatch
	EarlierCTStates  []CTStateMatch
	MatchSet         *SetMatch   // the first -m set match
	MatchSets        []*SetMatch // every -m set match, in order
	MultiPorts       []MultiPortMatch
	NFAcctName       string
	// Modules lists the "-m" modules in order of appearance.
	Modules []string
	// Unknown keeps every option (and module) the parser does not model.
	Unknown []UnknownMatch

	// Target is the -j or -g target ("" for a rule without one).
	Target string
	// Goto is set for "-g TARGET".
	Goto bool
	// TargetArgs are the target's own options, verbatim.
	TargetArgs []string
	NAT        *NATTarget  // DNAT and SNAT
	SetMark    *MarkTarget // MARK
	RejectWith string      // REJECT --reject-with
	ToPorts    string      // MASQUERADE/REDIRECT --to-ports
	// RandomFully is MASQUERADE/SNAT --random-fully.
	RandomFully bool
}

// AddrMatch is "-s" or "-d": an address prefix, possibly negated.
type AddrMatch struct {
	Set     bool
	Negated bool
	Prefix  netip.Prefix // masked; a host address has 32 (or 128) bits
}

// IfaceMatch is "-i" or "-o".
type IfaceMatch struct {
	Set     bool
	Negated bool
	Name    string
}

// ProtoMatch is "-p": a lower-case protocol name or number.
type ProtoMatch struct {
	Set     bool
	Negated bool
	Name    string
}

// PortMatch is "--dport" or "--sport": one port or an inclusive range.
type PortMatch struct {
	Set     bool
	Negated bool
	Lo, Hi  uint16
}

// StatisticMatch is "-m statistic".
type StatisticMatch struct {
	Mode    string // "random" or "nth"
	Negated bool   // "! --probability" or "! --every"
	// Probability is the --probability text as written; ProbabilityValue
	// its value.
	Probability      string
	ProbabilityValue float64
	Every, Packet    uint64 // nth mode
}

// RecentMatch is "-m recent".
type RecentMatch struct {
	Negated  bool
	Name     string // list name; "DEFAULT" if not given
	Set      bool
	Check    bool // --rcheck
	Update   bool
	Remove   bool
	Seconds  uint64
	Reap     bool
	HitCount uint64
	TTL      bool   // --rttl
	Mask     string // --mask; "" when not given
	Dest     bool   // --rdest (the default side is --rsource)
	Source   bool   // --rsource given explicitly
}

// AddrTypeMatch is "-m addrtype".
type AddrTypeMatch struct {
	SrcType, DstType       string // e.g. "LOCAL"; "" when not given
	SrcNegated, DstNegated bool
	LimitIfaceIn           bool
	LimitIfaceOut          bool
}

// MarkMatch is "-m mark --mark value[/mask]".
type MarkMatch struct {
	Negated bool
	Value   uint32
	Mask    uint32 // 0xffffffff when no mask was given
}

// CTStateMatch is "-m conntrack --ctstate" or "-m state --state".
type CTStateMatch struct {
	Module  string // "conntrack" or "state"
	Negated bool
	States  []string // upper case, as written
}

// SetMatch is "-m set --match-set NAME FLAGS".
type SetMatch struct {
	Negated bool
	Name    string
	Flags   []string // e.g. ["dst", "dst"]
}

// MultiPortMatch is "-m multiport --dports|--sports|--ports LIST".
type MultiPortMatch struct {
	Negated bool
	Side    string      // "dst", "src" or "both" (--ports: either port)
	Ranges  [][2]uint16 // inclusive
}

// UnknownMatch is an option (or a bare module) the parser does not model,
// kept verbatim. Option is "" for a module loaded with no options, and for a
// stray word, which is kept in Args.
type UnknownMatch struct {
	Module  string
	Negated bool
	Option  string
	Args    []string
}

// NATTarget holds DNAT --to-destination or SNAT --to-source.
type NATTarget struct {
	// To is the address text as written.
	To string
	// Addr is To parsed as one address with an optional port (port 0 means
	// "keep the port"); it is invalid for ranges.
	Addr        netip.AddrPort
	Random      bool
	RandomFully bool
	Persistent  bool
}

// MarkTarget is "-j MARK" with one of --set-xmark, --set-mark, --and-mark,
// --or-mark or --xor-mark.
type MarkTarget struct {
	Op    string // "set-xmark", "set-mark", "and-mark", "or-mark" or "xor-mark"
	Value uint32
	Mask  uint32 // for set-xmark and set-mark; 0xffffffff if not given
}

// XMark returns the target as the kernel stores it (xt_mark_tginfo2):
// the new mark is (mark &^ mask) ^ value. iptables-save prints every MARK
// target in this form, as "--set-xmark value/mask".
func (m MarkTarget) XMark() (value, mask uint32) {
	switch m.Op {
	case "set-mark":
		return m.Value, m.Mask | m.Value
	case "and-mark":
		return 0, ^m.Value
	case "or-mark":
		return m.Value, m.Value
	case "xor-mark":
		return m.Value, 0
	default:
		return m.Value, m.Mask
	}
}

// Apply returns mark after the target has run.
func (m MarkTarget) Apply(mark uint32) uint32 {
	v, mask := m.XMark()
	return (mark &^ mask) ^ v
}

// Jumps reports whether the rule jumps or goes to a user chain (any target
// that is not one of iptables' target extensions).
func (r *Rule) Jumps() bool {
	return r.Target != "" && !IsTargetExtension(r.Target)
}

// targetExtensions are iptables' built-in verdicts and target extensions
// (a wider list than kube-proxy's ACCEPT, REJECT, DROP, MARK, RETURN, DNAT,
// SNAT, MASQUERADE).
var targetExtensions = map[string]bool{
	"ACCEPT": true, "DROP": true, "RETURN": true, "QUEUE": true,
	"REJECT": true, "DNAT": true, "SNAT": true, "MASQUERADE": true,
	"MARK": true, "REDIRECT": true, "LOG": true, "NFLOG": true,
	"CONNMARK": true, "CT": true, "NOTRACK": true, "TRACE": true,
	"NFQUEUE": true, "TPROXY": true, "TCPMSS": true, "CHECKSUM": true,
	"CLASSIFY": true, "DSCP": true, "TOS": true, "TTL": true,
	"HMARK": true, "SET": true, "AUDIT": true, "NETMAP": true,
	"CONNSECMARK": true, "SECMARK": true, "IDLETIMER": true, "LED": true,
	"RATEEST": true, "SYNPROXY": true, "TEE": true, "ULOG": true,
}

// IsTargetExtension reports whether name is a verdict or target extension
// rather than a user chain.
func IsTargetExtension(name string) bool {
	return targetExtensions[name]
}
