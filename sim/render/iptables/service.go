package iptables

import (
	"strconv"
	"strings"
)

// isNodePort reports whether the port has a node port kube-proxy captures.
func (sp *servicePort) isNodePort() bool { return sp.nodePort != 0 }

// phrase returns the three parts of the comment `"NAME SUFFIX"`, where
// suffixQ is the suffix with its closing quote: kube-proxy's bytes for a
// plain name, commentWord's safe form otherwise.
func (sp *servicePort) phrase(suffixQ string) (string, string, string) {
	if sp.plain {
		return `"`, sp.name, suffixQ
	}
	return "", commentWord(sp.name+strings.TrimSuffix(suffixQ, `"`), true), ""
}

// bare is the name-only comment (SEP and KUBE-NODEPORTS rules).
func (sp *servicePort) bare() string {
	if sp.plain {
		return sp.name
	}
	return commentWord(sp.name, false)
}

// arrow is the `"NAME -> IP:port"` comment of a KUBE-SVC rule.
func (sp *servicePort) arrow(ep string) string {
	if sp.plain {
		return `"` + sp.name + " -> " + ep + `"`
	}
	return commentWord(sp.name+" -> "+ep, true)
}

// quoted is the comment `"PREFIX NAME SUFFIX"` (prefix and suffix hold
// their spaces): kube-proxy's bytes for a plain name, commentWord's safe
// form otherwise.
func (sp *servicePort) quoted(prefix, suffix string) string {
	if sp.plain {
		return `"` + prefix + sp.name + suffix + `"`
	}
	return commentWord(prefix+sp.name+suffix, true)
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
// cascade of writeServiceToEndpointRules into chain (KUBE-SVC or KUBE-SVL).
func (r *renderer) serviceToEndpointRules(sp *servicePort, chain string, endpoints []string) {
	if sp.clientIP {
		seconds := strconv.Itoa(sp.timeout)
		for _, ep := range endpoints {
			sep := sp.sepChain(ep)
			r.rule("-A ", chain, r.comment(sp.arrow(ep)),
				" -m recent --name ", sep, " --rcheck --seconds ", seconds, " --reap -j ", sep)
		}
	}
	n := len(endpoints)
	for i, ep := range endpoints {
		statistic := ""
		if i < n-1 {
			statistic = " -m statistic --mode random --probability " + Probability(n-i)
		}
		r.rule("-A ", chain, r.comment(sp.arrow(ep)), statistic, " -j ", sp.sepChain(ep))
	}
}

// endpointRules writes a KUBE-SEP chain: hairpin masquerade, then DNAT.
func (r *renderer) endpointRules(sp *servicePort, ep string) {
	sep := sp.sepChain(ep)
	ip := ep[:lastColon(ep)]
	if len(ip) > 1 && ip[0] == '[' {
		ip = ip[1 : len(ip)-1]
	}
	c := r.comment(sp.bare())
	r.rule("-A ", sep, c, " -s ", ip, " -j KUBE-MARK-MASQ")
	affinity := ""
	if sp.clientIP {
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
