package ipvs

import (
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
)

// IPSets are the sets of an `ipset save` output, by name.
type IPSets map[string]*IPSet

// IPSet is one set: its type ("hash:ip,port"), family and members.
type IPSet struct {
	Name    string
	Type    string   // e.g. "hash:net"
	Dims    []string // the type's dimensions: "ip", "net", "port", "iface", "mark", "set", "mac"
	Family  string   // "inet" or "inet6"
	Members []Member
	Line    int
}

// Member is one "add" line: a value per dimension.
type Member struct {
	Parts   []Part
	NoMatch bool // "nomatch": a net excluded from the set
}

// Part is one dimension of a member.
type Part struct {
	Prefix netip.Prefix // ip and net
	Proto  uint8        // port: 6, 17, 132 (tcp by default); 0 (any) in bitmap:port
	Lo, Hi uint16       // port, or a bitmap:port range
	Name   string       // iface or set
	Mark   uint32
}

// ParseIPSetSave reads `ipset save` (or `ipset list -o save`) output.
func ParseIPSetSave(r io.Reader) (IPSets, error) {
	sets := IPSets{}
	if err := eachLine(r, 16<<20, "ipset save", func(f []string, line int) error { return parseIPSetLine(sets, f, line) }); err != nil {
		return nil, err
	}
	return sets, nil
}

func parseIPSetLine(sets IPSets, f []string, line int) error {
	switch f[0] {
	case "create", "-N", "-exist":
		if len(f) < 3 {
			return fmt.Errorf("create needs a name and a type")
		}
		if sets[f[1]] != nil {
			return fmt.Errorf("set %q created twice", f[1])
		}
		s := &IPSet{Name: f[1], Type: f[2], Family: "inet", Line: line}
		kind, dims, ok := strings.Cut(f[2], ":")
		if !ok || (kind != "hash" && kind != "bitmap" && kind != "list") {
			return fmt.Errorf("set %q: unknown type %q", f[1], f[2])
		}
		s.Dims = strings.Split(dims, ",")
		for i := 3; i+1 < len(f); i++ {
			if f[i] == "family" {
				s.Family = f[i+1]
			}
		}
		sets[s.Name] = s
	case "add", "-A":
		if len(f) < 3 {
			return fmt.Errorf("add needs a set and a member")
		}
		s := sets[f[1]]
		if s == nil {
			return fmt.Errorf("add to set %q, which was not created", f[1])
		}
		m, err := s.parseMember(f[2])
		if err != nil {
			return fmt.Errorf("set %s member %q: %w", s.Name, f[2], err)
		}
		for _, w := range f[3:] {
			if w == "nomatch" {
				m.NoMatch = true
			}
		}
		s.Members = append(s.Members, m)
	default:
		return fmt.Errorf("unknown command %q", f[0])
	}
	return nil
}

func (s *IPSet) parseMember(text string) (Member, error) {
	words := strings.Split(text, ",")
	if len(words) != len(s.Dims) {
		return Member{}, fmt.Errorf("%d parts for a %s set", len(words), s.Type)
	}
	m := Member{Parts: make([]Part, len(words))}
	for i, w := range words {
		p, err := parsePart(s.Dims[i], w)
		if err != nil {
			return Member{}, err
		}
		if s.Dims[i] == "port" && strings.HasPrefix(s.Type, "bitmap:") {
			p.Proto = 0 // bitmap:port holds bare ports, of any protocol
		}
		m.Parts[i] = p
	}
	return m, nil
}

func parsePart(dim, w string) (Part, error) {
	switch dim {
	case "ip", "net":
		if strings.Contains(w, "/") {
			p, err := netip.ParsePrefix(w)
			return Part{Prefix: p.Masked()}, err
		}
		if lo, hi, ok := strings.Cut(w, "-"); ok && dim == "ip" {
			return Part{}, fmt.Errorf("address range %s-%s is not supported", lo, hi)
		}
		a, err := netip.ParseAddr(w)
		if err != nil {
			return Part{}, err
		}
		return Part{Prefix: netip.PrefixFrom(a, a.BitLen())}, nil
	case "port":
		return parsePort(w)
	case "iface", "set", "mac":
		return Part{Name: w}, nil
	case "mark":
		v, err := strconv.ParseUint(w, 0, 32)
		return Part{Mark: uint32(v)}, err
	}
	return Part{}, fmt.Errorf("unknown dimension %q", dim)
}

// parsePort parses "tcp:443", "udp:53", "443" (tcp) or "30000-30010".
func parsePort(w string) (Part, error) {
	p := Part{Proto: 6}
	if proto, port, ok := strings.Cut(w, ":"); ok {
		n, known := protoNumbers[proto]
		if !known {
			return Part{}, fmt.Errorf("unknown protocol %q", proto)
		}
		p.Proto, w = n, port
	}
	lo, hi, isRange := strings.Cut(w, "-")
	l, err := strconv.ParseUint(lo, 10, 16)
	if err != nil {
		return Part{}, fmt.Errorf("bad port %q", w)
	}
	p.Lo, p.Hi = uint16(l), uint16(l)
	if isRange {
		h, err := strconv.ParseUint(hi, 10, 16)
		if err != nil || h < l {
			return Part{}, fmt.Errorf("bad port range %q", w)
		}
		p.Hi = uint16(h)
	}
	return p, nil
}

var protoNumbers = map[string]uint8{"tcp": 6, "udp": 17, "sctp": 132, "icmp": 1, "udplite": 136}
