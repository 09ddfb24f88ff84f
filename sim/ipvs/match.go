package ipvs

import (
	"fmt"
	"net/netip"
)

// Probe is what a set is asked about: the packet's addresses, protocol,
// ports and mark.
type Probe struct {
	Src, Dst     netip.Addr
	Proto        uint8
	SPort, DPort uint16
	Mark         uint32
}

// Match reports whether the packet is in set s, each dimension taken from
// the side its flag names ("src" or "dst", as in --match-set NAME src,dst;
// missing flags repeat the last one). Members of list:set sets are looked
// up in sets. A dimension svclab cannot see (iface, mac) is an error.
func (s *IPSet) Match(sets IPSets, p Probe, flags []string) (bool, error) {
	return s.match(sets, p, flags, 0)
}

func (s *IPSet) match(sets IPSets, p Probe, flags []string, depth int) (bool, error) {
	if depth > 8 {
		return false, fmt.Errorf("set %s: list:set nesting too deep", s.Name)
	}
	if s.Dims[0] == "set" {
		for _, m := range s.Members {
			inner := sets[m.Parts[0].Name]
			if inner == nil {
				return false, fmt.Errorf("set %s lists set %q, which the save output lacks", s.Name, m.Parts[0].Name)
			}
			if ok, err := inner.match(sets, p, flags, depth+1); ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	matched := false
	for _, m := range s.Members {
		in, err := s.memberHas(m, p, flags)
		if err != nil {
			return false, err
		}
		if in && m.NoMatch {
			return false, nil // a nomatch net wins over the nets it lies in
		}
		matched = matched || in
	}
	return matched, nil
}

func (s *IPSet) memberHas(m Member, p Probe, flags []string) (bool, error) {
	for i, dim := range s.Dims {
		side := "src"
		if len(flags) > 0 {
			side = flags[min(i, len(flags)-1)]
		}
		addr, port := p.Src, p.SPort
		if side == "dst" {
			addr, port = p.Dst, p.DPort
		}
		part := m.Parts[i]
		switch dim {
		case "ip", "net":
			if !part.Prefix.Contains(addr) {
				return false, nil
			}
		case "port":
			if (part.Proto != 0 && part.Proto != p.Proto) || port < part.Lo || port > part.Hi {
				return false, nil
			}
		case "mark":
			if part.Mark != p.Mark {
				return false, nil
			}
		default:
			return false, fmt.Errorf("set %s: svclab cannot match the %s dimension", s.Name, dim)
		}
	}
	return true, nil
}
