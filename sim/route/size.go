package route

import "github.com/svclab/svclab/sim/render"

// PayloadSize predicts the rules, chains and elements (as render.Stats
// counts them) of md's payload for n synthetic ClusterIP services (one TCP
// port each) with m ready endpoints each, from the mode's formula in its
// entry of modes (sim/cost pins the formulas against the renderers).
func PayloadSize(md Mode, n, m int) (render.Stats, error) {
	e, err := modeEntry(md)
	if err != nil {
		return render.Stats{}, err
	}
	return e.size(n, m), nil
}

// withEndpoints is how many of n services have endpoints when each has m.
func withEndpoints(n, m int) int {
	if m > 0 {
		return n
	}
	return 0
}

// iptablesSize: fixed, 9 rules and 10 chains. Per service with M
// endpoints: one KUBE-SERVICES rule, a KUBE-SVC chain (1 masquerade rule
// + M jumps) and M KUBE-SEP chains of 2 rules: 3M+2 rules, 1+M chains.
// Without endpoints: one filter REJECT rule.
func iptablesSize(n, m int) render.Stats {
	w := withEndpoints(n, m)
	return render.Stats{Rules: 9 + w*(3*m+2) + (n - w), Chains: 10 + w*(1+m)}
}

// nftablesSize is kube-proxy v1.36+'s layout (the renderers' default).
// Fixed: 22 rules, 15 chains. Per service with endpoints: a service chain
// with one rule (dnat to the endpoint, or through a numgen map), and a
// hairpin-connections element per endpoint. Every service has 2 more
// elements: its cluster-ips set entry, and its service-ips map entry
// (no-endpoint-services when it has no endpoints). (v1.35's layout: 23
// rules and 16 chains fixed, plus a service chain and M endpoint chains of
// 2M+2 rules per service, and 2 elements.)
func nftablesSize(n, m int) render.Stats {
	w := withEndpoints(n, m)
	return render.Stats{Rules: 22 + w, Chains: 15 + w, Elements: 2*n + w*m}
}

// ipvsSize: one virtual server per service, one real server per
// endpoint; the iptables part is 17 rules, plus 2 once a service exists
// and 1 once an endpoint does; 11 chains, plus one virtual server per
// service. ipset members: KUBE-CLUSTER-IP and KUBE-IPVS-IPS hold every
// service, KUBE-LOOP-BACK every (local) endpoint.
func ipvsSize(n, m int) render.Stats {
	ipt := 17
	if n > 0 {
		ipt += 2
	}
	if n > 0 && m > 0 {
		ipt++
	}
	return render.Stats{Rules: ipt + n*(1+m), Chains: 11 + n, Elements: 2*n + n*m}
}
