package ipvs

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteTo prints the sets as `ipset save` does (create lines, then the
// members), sorted by name, so that ParseIPSetSave reads them back the
// same.
func (sets IPSets) WriteTo(w io.Writer) (int64, error) {
	names := make([]string, 0, len(sets))
	for n := range sets {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		s := sets[n]
		fmt.Fprintf(&b, "create %s %s family %s\n", s.Name, s.Type, s.Family)
		for _, m := range s.Members {
			parts := make([]string, len(m.Parts))
			for i, p := range m.Parts {
				parts[i] = p.text(s.Dims[i])
			}
			b.WriteString("add " + s.Name + " " + strings.Join(parts, ","))
			if m.NoMatch {
				b.WriteString(" nomatch")
			}
			b.WriteByte('\n')
		}
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}

var protoNames = map[uint8]string{6: "tcp", 17: "udp", 132: "sctp", 1: "icmp", 136: "udplite"}

func (p Part) text(dim string) string {
	switch dim {
	case "ip", "net":
		if p.Prefix.IsSingleIP() {
			return p.Prefix.Addr().String()
		}
		return p.Prefix.String()
	case "port":
		port := fmt.Sprint(p.Lo)
		if p.Hi != p.Lo {
			port += fmt.Sprintf("-%d", p.Hi)
		}
		if p.Proto == 0 {
			return port
		}
		return protoNames[p.Proto] + ":" + port
	case "mark":
		return fmt.Sprintf("0x%x", p.Mark)
	}
	return p.Name
}
