package ipvs

import (
	"io"
	"net/netip"
	"strconv"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// RenderIPVSAdm writes the IPVS table kube-proxy builds for m as
// `ipvsadm -R` input, in `ipvsadm -S -n` syntax: per service port a virtual
// server on the ClusterIP, on each external IP and load-balancer ingress
// IP, and (for NodePort and LoadBalancer services) on each node address
// on the node port, each followed by its real servers:
//
//	-A -t 172.30.0.43:80 -s rr
//	-a -t 172.30.0.43:80 -r 10.0.3.2:80 -m -w 1
//	-A -t [fd00::43]:80 -s rr
//
// Real servers use masquerading (kube-proxy leaves ConnectionFlags 0, i.e.
// IP_VS_CONN_F_MASQ) and weight 1. ClientIP affinity adds `-p <timeout>`
// (FlagPersistent); the mh scheduler adds `-b mh-port` (FlagSourceHash).
// Real servers are the endpoints kube-proxy's syncEndpoint picks (see
// realServers: traffic policies, topology hints, the serving-terminating
// fallback). A service without them still gets its virtual servers, with
// no real server, as kube-proxy does. Stats: Chains counts virtual
// servers, Rules counts virtual plus real servers.
func RenderIPVSAdm(w io.Writer, m *model.Model, opts Options) (render.Stats, error) {
	if err := opts.validate(); err != nil {
		return render.Stats{}, err
	}
	n := newNode(m, opts)
	return renderIPVSAdm(w, m, opts, &n)
}

func renderIPVSAdm(w io.Writer, m *model.Model, opts Options, n *node) (render.Stats, error) {
	rw := render.NewWriter(w)
	vs := newVirtualServerFormat(opts)
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		if !programmed(s) {
			continue
		}
		if err := n.checkService(s); err != nil {
			return render.Stats{}, err
		}
		pol := policyOf(s)
		for _, p := range s.Ports {
			internal, external := n.realServers(s, pol, p)
			vs.write(rw, s, p, s.ClusterIP, p.Port, internal)
			for _, ip := range pol.ext {
				vs.write(rw, s, p, ip, p.Port, external)
			}
			for _, ip := range pol.lbs {
				if !contains(pol.ext, ip) { // the same virtual server
					vs.write(rw, s, p, ip, p.Port, external)
				}
			}
			if np := pol.nodePort(p); np != 0 {
				for _, ip := range n.nodePortIPs {
					vs.write(rw, s, p, ip, np, external)
				}
			}
		}
	}
	return rw.Flush()
}

// virtualServerFormat holds the per-render parts of a virtual server line.
type virtualServerFormat struct {
	scheduler string // " -s rr"
	flags     string // " -b mh-port" or ""
}

func newVirtualServerFormat(opts Options) virtualServerFormat {
	f := virtualServerFormat{scheduler: " -s " + opts.scheduler()}
	if fl := opts.schedFlags(); fl != "" {
		f.flags = " -b " + fl
	}
	return f
}

// write writes one virtual server at addr:port and its real servers.
func (f virtualServerFormat) write(rw *render.Writer, s *model.Service, p model.Port, addr netip.Addr, port int, endpoints []string) {
	service := serviceOption(p.Protocol) + netip.AddrPortFrom(addr, uint16(port)).String()
	rw.Line("-A ", service, f.scheduler, persistence(s), f.flags)
	rw.CountChain()
	rw.CountRule()
	for _, ep := range endpoints {
		rw.Line("-a ", service, " -r ", ep, " -m -w 1")
		rw.CountRule()
	}
}

// serviceOption is ipvsadm's virtual-service option for the protocol.
func serviceOption(p model.Protocol) string {
	switch p {
	case model.UDP:
		return "-u "
	case model.SCTP:
		return "--sctp-service "
	}
	return "-t "
}

// persistence is " -p <timeout>" for ClientIP affinity, else "".
func persistence(s *model.Service) string {
	if !s.Affinity.ClientIP {
		return ""
	}
	timeout := s.Affinity.Timeout
	if timeout <= 0 {
		timeout = model.DefaultAffinityTimeout
	}
	return " -p " + strconv.Itoa(timeout)
}
