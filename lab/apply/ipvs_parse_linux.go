package apply

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	cipvs "github.com/cloudflare/ipvs"
	"github.com/cloudflare/ipvs/netmask"
)

// parseIPVSAdm turns the subset of `ipvsadm -R` text that RenderIPVSAdm
// writes into virtual servers: "-A <proto> addr:port -s sched [-p secs]
// [-b flags]" and "-a <proto> addr:port -r addr:port -m -w weight".
func parseIPVSAdm(text []byte) ([]virtualServer, error) {
	var servers []virtualServer
	index := map[serviceKey]int{}
	for n, line := range strings.Split(strings.TrimRight(string(text), "\n"), "\n") {
		if line == "" {
			continue
		}
		if err := parseIPVSAdmLine(strings.Fields(line), &servers, index); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", n+1, line, err)
		}
	}
	return servers, nil
}

func parseIPVSAdmLine(f []string, servers *[]virtualServer, index map[serviceKey]int) error {
	if len(f) < 3 || (f[0] != "-A" && f[0] != "-a") {
		return errors.New("want -A or -a, a protocol option and address:port")
	}
	proto, err := ipvsProtocol(f[1])
	if err != nil {
		return err
	}
	addr, err := netip.ParseAddrPort(f[2])
	if err != nil || !addr.Addr().Is4() {
		return fmt.Errorf("virtual server %q: want IPv4 address:port", f[2])
	}
	svc := cipvs.Service{Address: addr.Addr(), Port: addr.Port(), Family: cipvs.INET, Protocol: proto, Netmask: netmask.MaskFrom(32, 32)}
	k := keyOf(svc)
	if f[0] == "-A" {
		if _, dup := index[k]; dup {
			return errors.New("virtual server defined twice")
		}
		if err := parseServiceOptions(&svc, f[3:]); err != nil {
			return err
		}
		index[k] = len(*servers)
		*servers = append(*servers, virtualServer{svc: svc})
		return nil
	}
	i, ok := index[k]
	if !ok {
		return errors.New("real server before its virtual server")
	}
	dst, err := parseDestination(f[3:])
	if err != nil {
		return err
	}
	(*servers)[i].dests = append((*servers)[i].dests, dst)
	return nil
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

func parseServiceOptions(svc *cipvs.Service, opts []string) error {
	for i := 0; i < len(opts); i += 2 {
		if i+1 >= len(opts) {
			return fmt.Errorf("option %s without a value", opts[i])
		}
		v := opts[i+1]
		switch opts[i] {
		case "-s":
			svc.Scheduler = v
		case "-p":
			secs, err := strconv.ParseUint(v, 10, 32)
			if err != nil || secs == 0 {
				return fmt.Errorf("persistence timeout %q", v)
			}
			svc.Flags |= cipvs.ServicePersistent
			svc.Timeout = uint32(secs)
		case "-b":
			for _, name := range strings.Split(v, ",") {
				fl, ok := schedFlags[name]
				if !ok {
					return fmt.Errorf("scheduler flag %q", name)
				}
				svc.Flags |= fl
			}
		default:
			return fmt.Errorf("unsupported virtual server option %s", opts[i])
		}
	}
	if svc.Scheduler == "" {
		return errors.New("no scheduler (-s)")
	}
	return nil
}

func parseDestination(opts []string) (cipvs.Destination, error) {
	if len(opts) != 5 || opts[0] != "-r" || opts[2] != "-m" || opts[3] != "-w" {
		return cipvs.Destination{}, errors.New("want -r address:port -m -w weight")
	}
	addr, err := netip.ParseAddrPort(opts[1])
	if err != nil || !addr.Addr().Is4() {
		return cipvs.Destination{}, fmt.Errorf("real server %q: want IPv4 address:port", opts[1])
	}
	weight, err := strconv.ParseUint(opts[4], 10, 31)
	if err != nil {
		return cipvs.Destination{}, fmt.Errorf("weight %q", opts[4])
	}
	return cipvs.Destination{Address: addr.Addr(), Port: addr.Port(), Family: cipvs.INET, FwdMethod: cipvs.Masquerade, Weight: uint32(weight)}, nil
}
