package audit

import (
	"strings"

	simipt "github.com/svclab/svclab/sim/iptables"
)

// othersChains are KUBE-* chains kube-proxy's payload does not write:
// kubelet's, and the canaries both create outside their restore. The
// node may hold them; they are compared only when the expected rules
// have them too.
var othersChains = map[string]bool{
	"KUBE-FIREWALL": true, "KUBE-KUBELET-CANARY": true, "KUBE-PROXY-CANARY": true,
	"KUBE-IPTABLES-HINT": true, "KUBE-MARK-DROP": true,
}

// iptablesFacts adds the facts of d's kube-proxy chains: each chain, each
// rule in its normal form without comments (kube-proxy's order freedom
// removed by iptables.Sort), and the rules of the built-in chains that
// jump into kube-proxy's chains.
func iptablesFacts(s *factSet, d *simipt.Dump, idx *owners) {
	if d == nil {
		return
	}
	d = d.Clone()
	simipt.Sort(d)
	for _, t := range d.Tables {
		for _, c := range t.Chains {
			if c.Deleted {
				continue
			}
			builtin := simipt.IsBuiltinChain(t.Name, c.Name)
			if !builtin && !kubeProxyChain(c.Name) {
				continue
			}
			object := t.Name + " chain " + c.Name
			chainOwner := chainService(c, idx)
			if !builtin {
				s.add(fact{object: object, owner: chainOwner})
			}
			for _, r := range c.Rules {
				if builtin && !kubeProxyChain(r.Target) || r.NFAcctName == localhostNodePortsCounter {
					continue
				}
				o := serviceOfComment(r)
				if o == "" {
					o = chainOwner
				}
				s.add(fact{object: object, item: ruleItem(r), owner: o, ordered: !builtin})
			}
		}
	}
}

// kubeProxyChain reports whether a chain of this name is kube-proxy's.
func kubeProxyChain(name string) bool {
	return strings.HasPrefix(name, "KUBE-") && !othersChains[name]
}

// localhostNodePortsCounter is the nfacct counter of the rule kube-proxy
// adds before each NodePort rule, only when the host has xt_nfacct, to
// count localhost NodePort connections: it jumps where the next rule
// jumps, so it is counting, not routing, and not compared.
const localhostNodePortsCounter = "localhost_nps_accepted_pkts"

// ruleItem is r's normal form without its chain, comments and counters
// (packet counters and nfacct matches: kube-proxy writes those only when
// it finds xt_nfacct on the host).
func ruleItem(r *simipt.Rule) string {
	c := *r
	c.Comments = nil
	c.NFAcctName = ""
	n := simipt.Normalize(&c)
	n = strings.TrimPrefix(n, "-A "+simipt.QuoteWord(r.Chain))
	return strings.TrimSpace(n)
}

// serviceOfComment is the Service a kube-proxy comment names.
func serviceOfComment(r *simipt.Rule) string {
	for _, c := range r.Comments {
		if s := serviceOfPortName(c); s != "" {
			return s
		}
	}
	return ""
}

// chainService is the Service a chain serves: the first its rules'
// comments name, else the owner of the first address its rules match or
// DNAT to.
func chainService(c *simipt.Chain, idx *owners) string {
	for _, r := range c.Rules {
		if s := serviceOfComment(r); s != "" {
			return s
		}
	}
	for _, r := range c.Rules {
		if r.Destination.Set && !r.Destination.Negated {
			if s := idx.ofAddr(r.Destination.Prefix.Addr()); s != "" {
				return s
			}
		}
		if r.NAT != nil && r.NAT.Addr.IsValid() {
			if s := idx.ofAddr(r.NAT.Addr.Addr()); s != "" {
				return s
			}
		}
	}
	return ""
}
