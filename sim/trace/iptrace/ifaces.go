package iptrace

import (
	"strings"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
)

// ifaceMatch is -i or -o: a name, or a prefix for "name+".
type ifaceMatch struct {
	set, neg, prefix bool
	name             string
}

func compileIface(m iptables.IfaceMatch) ifaceMatch {
	if !m.Set {
		return ifaceMatch{}
	}
	name, prefix := strings.CutSuffix(m.Name, "+")
	return ifaceMatch{set: true, neg: m.Negated, prefix: prefix, name: name}
}

// matches reports whether iface (known) matches.
func (m *ifaceMatch) matches(iface string) bool {
	in := iface == m.name || (m.prefix && strings.HasPrefix(iface, m.name))
	return in != m.neg
}

func (m *ifaceMatch) String(opt string) string {
	s := negWord(m.neg) + opt + " " + m.name
	if m.prefix {
		s += "+"
	}
	return s
}

// setMatch is -m set --match-set NAME FLAGS.
type setMatch struct {
	name  string
	flags []string
	neg   bool
}

// tcpFlagsMatch is --syn or --tcp-flags MASK COMP.
type tcpFlagsMatch struct {
	neg        bool
	mask, comp uint8
}

// TCP flag bits.
const (
	tcpFIN uint8 = 1 << iota
	tcpSYN
	tcpRST
	tcpPSH
	tcpACK
	tcpURG
)

var tcpFlagBits = map[string]uint8{"FIN": tcpFIN, "SYN": tcpSYN, "RST": tcpRST, "PSH": tcpPSH, "ACK": tcpACK, "URG": tcpURG, "ALL": 0x3f, "NONE": 0}

func compileTCPFlags(r *iptables.Rule) *tcpFlagsMatch {
	for _, u := range r.Unknown {
		switch {
		case u.Module != "tcp":
		case u.Option == "--syn":
			return &tcpFlagsMatch{neg: u.Negated, mask: tcpSYN | tcpRST | tcpACK | tcpFIN, comp: tcpSYN}
		case u.Option == "--tcp-flags" && len(u.Args) == 2:
			return &tcpFlagsMatch{neg: u.Negated, mask: flagList(u.Args[0]), comp: flagList(u.Args[1])}
		}
	}
	return nil
}

func flagList(s string) uint8 {
	var f uint8
	for _, w := range strings.Split(s, ",") {
		f |= tcpFlagBits[w]
	}
	return f
}

// setsMatch evaluates the rule's --match-set matches: false if one does
// not match, or the reason it cannot be decided.
func (t *IPTablesTracer) setsMatch(r *compiledRule, p *pktState) (bool, string) {
	for i := range r.sets {
		m := &r.sets[i]
		set := t.sets[m.name]
		if set == nil {
			why := "no ipset save given (--ipsets)"
			if t.sets != nil {
				why = "not in the ipset save"
			}
			return false, negWord(m.neg) + "--match-set " + m.name + " (" + why + ")"
		}
		in, err := set.Match(t.sets, ipvs.Probe{Src: p.src, Dst: p.dst, Proto: p.proto, SPort: p.sport, DPort: p.dport, Mark: p.mark}, m.flags)
		if err != nil {
			return false, negWord(m.neg) + "--match-set " + m.name + " (" + err.Error() + ")"
		}
		if in == m.neg {
			return false, ""
		}
	}
	return true, ""
}

func multiportMatches(ms []iptables.MultiPortMatch, p *pktState) bool {
	for _, m := range ms {
		in := false
		for _, r := range m.Ranges {
			d := p.dport >= r[0] && p.dport <= r[1]
			s := p.sport >= r[0] && p.sport <= r[1]
			switch m.Side {
			case "dst":
				in = in || d
			case "src":
				in = in || s
			default:
				in = in || d || s
			}
		}
		if in == m.Negated {
			return false
		}
	}
	return true
}
