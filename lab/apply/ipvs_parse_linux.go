package apply

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	simipvs "github.com/svclab/svclab/sim/ipvs"

	cipvs "github.com/cloudflare/ipvs"
	"github.com/cloudflare/ipvs/netmask"
)

// parseIPVSAdm turns ipvsadm text (what RenderIPVSAdm writes, in
// `ipvsadm -R` / `-Sn` form) into virtual servers for netlink. The text is
// parsed by sim/ipvs, the parser the IPVS tracer uses, so what is rendered,
// traced and applied is read one way.
func parseIPVSAdm(text []byte) ([]virtualServer, error) {
	table, err := simipvs.ParseIPVSAdm(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	servers := make([]virtualServer, 0, len(table.Services))
	for _, s := range table.Services {
		vs, err := toVirtualServer(s)
		if err != nil {
			return nil, fmt.Errorf("line %d (%s): %w", s.Line, s.Key(), err)
		}
		servers = append(servers, vs)
	}
	return servers, nil
}

// toVirtualServer is one parsed virtual server in cloudflare/ipvs terms.
func toVirtualServer(s *simipvs.Service) (virtualServer, error) {
	if s.Protocol == "" || !s.Addr.IsValid() {
		return virtualServer{}, errors.New("want an address:port service, IPv4 or [IPv6] (no firewall marks)")
	}
	proto, err := ipvsProtocol(strings.ToUpper(s.Protocol))
	if err != nil {
		return virtualServer{}, err
	}
	vip := s.Addr.Addr().Unmap()
	fam := familyOf(vip)
	svc := cipvs.Service{Address: vip, Port: s.Addr.Port(), Family: fam, Protocol: proto,
		Netmask: netmask.MaskFrom(vip.BitLen(), vip.BitLen()), Scheduler: s.Scheduler}
	if svc.Scheduler == "" {
		return virtualServer{}, errors.New("no scheduler (-s)")
	}
	if s.Netmask != "" {
		return virtualServer{}, fmt.Errorf("persistence netmask -M %s: kube-proxy never sets one, and svclab does not apply it", s.Netmask)
	}
	if s.Persistent > 0 {
		svc.Flags |= cipvs.ServicePersistent
		svc.Timeout = uint32(s.Persistent)
	}
	if s.Flags != "" {
		for _, name := range strings.Split(s.Flags, ",") {
			fl, ok := schedFlags[name]
			if !ok {
				return virtualServer{}, fmt.Errorf("scheduler flag %q", name)
			}
			svc.Flags |= fl
		}
	}
	vs := virtualServer{svc: svc}
	for _, d := range s.Dests {
		rip := d.Addr.Addr().Unmap()
		if d.Method != "masq" || familyOf(rip) != fam || d.Weight < 0 {
			return virtualServer{}, fmt.Errorf("real server %s: want the virtual server's family (%s), masquerading (-m), weight ≥ 0", d.Addr, familyName(fam))
		}
		vs.dests = append(vs.dests, cipvs.Destination{Address: rip, Port: d.Addr.Port(), Family: fam,
			FwdMethod: cipvs.Masquerade, Weight: uint32(d.Weight)})
	}
	return vs, nil
}

// familyOf is a's IPVS address family.
func familyOf(a netip.Addr) cipvs.AddressFamily {
	if a.Is4() {
		return cipvs.INET
	}
	return cipvs.INET6
}

// familyName names an IPVS address family as the model does.
func familyName(f cipvs.AddressFamily) string {
	if f == cipvs.INET6 {
		return "IPv6"
	}
	return "IPv4"
}

// ipvsProtocol maps an ipvsadm service option or a model protocol name.
func ipvsProtocol(s string) (cipvs.Protocol, error) {
	switch s {
	case "-t", "TCP":
		return cipvs.TCP, nil
	case "-u", "UDP":
		return cipvs.UDP, nil
	case "--sctp-service", "SCTP":
		return cipvs.SCTP, nil
	}
	return 0, fmt.Errorf("protocol %q: want TCP, UDP or SCTP", s)
}

// schedFlags are ipvsadm's -b names (ipvsadm.c, IP_VS_SVC_F_SCHED*).
var schedFlags = map[string]cipvs.Flags{
	"flag-1": cipvs.ServiceSchedulerOpt1, "sh-fallback": cipvs.ServiceSchedulerOpt1, "mh-fallback": cipvs.ServiceSchedulerOpt1,
	"flag-2": cipvs.ServiceSchedulerOpt2, "sh-port": cipvs.ServiceSchedulerOpt2, "mh-port": cipvs.ServiceSchedulerOpt2,
	"flag-3": cipvs.ServiceSchedulerOpt3,
}
