package iptables

import (
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/kpname"
	"github.com/svclab/svclab/sim/model"
)

// servicePort is one service port with the names kube-proxy derives for it.
type servicePort struct {
	svc       *model.Service
	port      model.Port
	name      string // "ns/svc:port"
	plain     bool   // name can be copied into comments as kube-proxy does
	proto     string // "tcp"
	svcChain  string
	extChain  string
	endpoints []string // "IP:port" kube-proxy routes to, in its order
}

func newServicePort(s *model.Service, p model.Port) servicePort {
	name := s.PortName(p)
	proto := p.Protocol.Lower()
	return servicePort{
		svc: s, port: p, name: name, plain: plainName(name), proto: proto,
		svcChain:  kpname.ServiceChain(name, proto),
		extChain:  kpname.ExternalChain(name, proto),
		endpoints: s.UsableEndpointAddrs(p),
	}
}

func (sp servicePort) hasEndpoints() bool { return len(sp.endpoints) > 0 }
func (sp servicePort) isNodePort() bool {
	return sp.svc.Type == model.NodePort && sp.port.NodePort > 0
}
func (sp servicePort) sepChain(ep string) string { return kpname.EndpointChain(sp.name, sp.proto, ep) }

// phrase returns the three parts of the comment `"NAME SUFFIX"`, where
// suffixQ is the suffix with its closing quote: kube-proxy's bytes for a
// plain name, commentWord's safe form otherwise.
func (sp servicePort) phrase(suffixQ string) (string, string, string) {
	if sp.plain {
		return `"`, sp.name, suffixQ
	}
	return "", commentWord(sp.name+strings.TrimSuffix(suffixQ, `"`), true), ""
}

// bare is the name-only comment (SEP and KUBE-NODEPORTS rules).
func (sp servicePort) bare() string {
	if sp.plain {
		return sp.name
	}
	return commentWord(sp.name, false)
}

// arrow is the `"NAME -> IP:port"` comment of a KUBE-SVC rule.
func (sp servicePort) arrow(ep string) string {
	if sp.plain {
		return `"` + sp.name + " -> " + ep + `"`
	}
	return commentWord(sp.name+" -> "+ep, true)
}

// serviceFilterRules writes the filter rules of a service without endpoints.
func (r *renderer) serviceFilterRules(s *model.Service) {
	for _, p := range s.Ports {
		sp := newServicePort(s, p)
		if sp.hasEndpoints() {
			continue
		}
		a, b, c := sp.phrase(` has no endpoints"`)
		r.rule(`-A KUBE-SERVICES -m comment --comment `, a, b, c, " -m ", sp.proto, " -p ", sp.proto,
			" -d ", s.ClusterIP.String(), " --dport ", strconv.Itoa(p.Port), " -j REJECT")
		if sp.isNodePort() {
			r.rule(`-A KUBE-EXTERNAL-SERVICES -m comment --comment `, a, b, c, ` -m addrtype --dst-type LOCAL -m `,
				sp.proto, " -p ", sp.proto, " --dport ", strconv.Itoa(p.NodePort), " -j REJECT")
		}
	}
}

// natChains calls f with each nat chain of s in kube-proxy's declaration
// order: EXT, SVC, then one SEP per endpoint. A port without endpoints has
// none.
func natChains(s *model.Service, f func(chain string)) {
	for _, p := range s.Ports {
		sp := newServicePort(s, p)
		if !sp.hasEndpoints() {
			continue
		}
		if sp.isNodePort() {
			f(sp.extChain)
		}
		f(sp.svcChain)
		for _, ep := range sp.endpoints {
			f(sp.sepChain(ep))
		}
	}
}

// serviceNatRules writes a service's nat rules in kube-proxy's order; its
// own chains' rules only when withChains is set.
func (r *renderer) serviceNatRules(s *model.Service, withChains bool) {
	for _, p := range s.Ports {
		sp := newServicePort(s, p)
		if !sp.hasEndpoints() {
			continue
		}
		clusterIP, port := s.ClusterIP.String(), strconv.Itoa(p.Port)
		a, b, c := sp.phrase(` cluster IP"`)
		r.rule(`-A KUBE-SERVICES -m comment --comment `, a, b, c, " -m ", sp.proto, " -p ", sp.proto,
			" -d ", clusterIP, " --dport ", port, " -j ", sp.svcChain)
		if sp.isNodePort() {
			if r.opts.LocalhostNodePorts && r.opts.NFAcct {
				r.rule("-A KUBE-NODEPORTS -m comment --comment ", sp.bare(), " -m ", sp.proto, " -p ", sp.proto,
					" -d 127.0.0.0/8 --dport ", strconv.Itoa(p.NodePort), " -m nfacct --nfacct-name localhost_nps_accepted_pkts -j ", sp.extChain)
			}
			r.rule("-A KUBE-NODEPORTS -m comment --comment ", sp.bare(), " -m ", sp.proto, " -p ", sp.proto,
				" --dport ", strconv.Itoa(p.NodePort), " -j ", sp.extChain)
		}
		if !withChains {
			continue
		}
		switch {
		case r.opts.MasqueradeAll:
			r.rule("-A ", sp.svcChain, ` -m comment --comment `, a, b, c, " -m ", sp.proto, " -p ", sp.proto,
				" -d ", clusterIP, " --dport ", port, " -j KUBE-MARK-MASQ")
		case r.cluster.ClusterCIDR.IsValid(): // kube-proxy's local detector
			r.rule("-A ", sp.svcChain, ` -m comment --comment `, a, b, c, " -m ", sp.proto, " -p ", sp.proto,
				" -d ", clusterIP, " --dport ", port, " ! -s ", r.cluster.ClusterCIDR.String(), " -j KUBE-MARK-MASQ")
		}
		if sp.isNodePort() {
			ma, mb, mc := sp.phrase(` external destinations"`)
			if sp.plain {
				ma = `"masquerade traffic for `
			} else {
				mb = commentWord("masquerade traffic for "+sp.name+" external destinations", true)
			}
			r.rule("-A ", sp.extChain, ` -m comment --comment `, ma, mb, mc, ` -j KUBE-MARK-MASQ`)
			r.rule("-A ", sp.extChain, " -j ", sp.svcChain)
		}
		r.serviceToEndpointRules(sp)
		for _, ep := range sp.endpoints {
			r.endpointRules(sp, ep)
		}
	}
}

// comment returns kube-proxy's appendServiceCommentLocked part: nothing in
// large-cluster mode.
func (r *renderer) comment(word string) string {
	if r.large {
		return ""
	}
	return " -m comment --comment " + word
}

// serviceToEndpointRules writes the affinity checks and the statistic
// cascade of writeServiceToEndpointRules.
func (r *renderer) serviceToEndpointRules(sp servicePort) {
	if sp.svc.Affinity.ClientIP {
		seconds := strconv.Itoa(sp.svc.Affinity.Timeout)
		for _, ep := range sp.endpoints {
			sep := sp.sepChain(ep)
			r.rule("-A ", sp.svcChain, r.comment(sp.arrow(ep)),
				" -m recent --name ", sep, " --rcheck --seconds ", seconds, " --reap -j ", sep)
		}
	}
	n := len(sp.endpoints)
	for i, ep := range sp.endpoints {
		statistic := ""
		if i < n-1 {
			statistic = " -m statistic --mode random --probability " + Probability(n-i)
		}
		r.rule("-A ", sp.svcChain, r.comment(sp.arrow(ep)), statistic, " -j ", sp.sepChain(ep))
	}
}

// endpointRules writes a KUBE-SEP chain: hairpin masquerade, then DNAT.
func (r *renderer) endpointRules(sp servicePort, ep string) {
	sep := sp.sepChain(ep)
	ip := ep[:lastColon(ep)]
	if len(ip) > 1 && ip[0] == '[' {
		ip = ip[1 : len(ip)-1]
	}
	c := r.comment(sp.bare())
	r.rule("-A ", sep, c, " -s ", ip, " -j KUBE-MARK-MASQ")
	affinity := ""
	if sp.svc.Affinity.ClientIP {
		affinity = " -m recent --name " + sep + " --set"
	}
	r.rule("-A ", sep, c, affinity, " -m ", sp.proto, " -p ", sp.proto, " -j DNAT --to-destination ", ep)
}

func lastColon(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return i
		}
	}
	return len(s)
}
