package audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/analyze"
	simipvs "github.com/svclab/svclab/sim/ipvs"
)

// ipvsFacts adds IPVS mode's virtual servers (scheduler, persistence,
// flags) with their real servers (method and weight), and kube-proxy's
// KUBE-* ipsets with their members.
func ipvsFacts(s *factSet, d *analyze.Dump, idx *owners) {
	if d.IPVS != nil {
		for _, vs := range d.IPVS.Services {
			object := "virtual server " + vs.Key()
			owner := ""
			if vs.Addr.IsValid() {
				owner = idx.ofAddr(vs.Addr.Addr())
				if owner == "" {
					owner = idx.nodePorts[int(vs.Addr.Port())]
				}
				if owner == "" {
					owner = vs.Key() // no Service has the address: name it by the address
				}
			}
			s.add(fact{object: object, value: virtualServer(vs), owner: owner})
			for _, rs := range vs.Dests {
				s.add(fact{object: object, item: rs.Addr.String(), value: fmt.Sprintf("%s weight %d", rs.Method, rs.Weight), owner: owner})
			}
		}
	}
	for _, name := range sortedKeys(d.IPSets) {
		set := d.IPSets[name]
		if !strings.HasPrefix(name, "KUBE-") {
			continue
		}
		object := "ipset " + name
		s.add(fact{object: object, value: set.Type + " family " + set.Family})
		for _, m := range set.Members {
			text := memberText(set, m)
			s.add(fact{object: object, item: text, owner: memberService(text, idx)})
		}
	}
}

func virtualServer(vs *simipvs.Service) string {
	v := "scheduler " + vs.Scheduler
	if vs.Persistent > 0 {
		v += " persistent " + strconv.Itoa(vs.Persistent)
	}
	if vs.Flags != "" {
		v += " flags " + vs.Flags
	}
	return v
}

// memberText writes a member as `ipset save` does ("10.0.0.1,tcp:80").
func memberText(s *simipvs.IPSet, m simipvs.Member) string {
	parts := make([]string, len(m.Parts))
	for i, p := range m.Parts {
		dim := ""
		if i < len(s.Dims) {
			dim = s.Dims[i]
		}
		switch dim {
		case "ip", "net":
			parts[i] = p.Prefix.String()
			if p.Prefix.IsSingleIP() {
				parts[i] = p.Prefix.Addr().String()
			}
		case "port":
			parts[i] = fmt.Sprintf("%s:%d", protoName(p.Proto), p.Lo)
			if p.Hi != p.Lo {
				parts[i] += fmt.Sprintf("-%d", p.Hi)
			}
		case "mark":
			parts[i] = fmt.Sprintf("%#x", p.Mark)
		default:
			parts[i] = p.Name
		}
	}
	text := strings.Join(parts, ",")
	if m.NoMatch {
		text += " nomatch"
	}
	return text
}

func protoName(p uint8) string {
	switch p {
	case 6:
		return "tcp"
	case 17:
		return "udp"
	case 132:
		return "sctp"
	}
	return strconv.Itoa(int(p))
}

// memberService is the Service a member serves, else the virtual server
// key ("-t 10.0.0.1:80") of an "IP,proto:port" member no Service has.
func memberService(text string, idx *owners) string {
	if s := idx.ofText(text); s != "" {
		return s
	}
	ip, pp, ok := strings.Cut(text, ",")
	proto, port, ok2 := strings.Cut(pp, ":")
	flag := map[string]string{"tcp": "-t", "udp": "-u", "sctp": "--sctp-service"}[proto]
	if !ok || !ok2 || flag == "" || strings.Contains(port, ",") {
		return ""
	}
	return flag + " " + ip + ":" + port
}
