package iptrace

import (
	"fmt"
	"strings"

	"github.com/svclab/svclab/sim/iptables"
)

// kubeJumps are the rules kube-proxy installs in the built-in chains
// (iptablesJumpChains, each added with EnsureRule(Prepend), so the last
// listed comes first), plus kubelet's KUBE-FIREWALL jumps, in the order
// they are believed to end up in.
var kubeJumps = map[string]map[string][]string{
	"nat": {
		"PREROUTING":  {`-m comment --comment "kubernetes service portals" -j KUBE-SERVICES`},
		"OUTPUT":      {`-m comment --comment "kubernetes service portals" -j KUBE-SERVICES`},
		"POSTROUTING": {`-m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING`},
	},
	"filter": {
		"INPUT": {
			`-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`,
			`-m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS`,
			`-m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES`,
			`-j KUBE-FIREWALL`,
		},
		"FORWARD": {
			`-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`,
			`-m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD`,
			`-m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES`,
			`-m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES`,
		},
		"OUTPUT": {
			`-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`,
			`-m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES`,
			`-j KUBE-FIREWALL`,
		},
	},
}

// walkedChains are the built-in chains the tracer walks, per table.
var walkedChains = map[string][]string{
	"nat":    {"PREROUTING", "OUTPUT", "POSTROUTING"},
	"filter": {"INPUT", "FORWARD", "OUTPUT"},
}

// addKubeJumps adds each walked built-in chain that ct lacks, holding
// kube-proxy's jump rules to the chains ct has, and describes each chain it
// filled ("nat PREROUTING -> KUBE-SERVICES").
func addKubeJumps(ct *compiledTable) []string {
	var notes []string
	for _, name := range walkedChains[ct.name] {
		if ct.chain(name) >= 0 {
			continue
		}
		var rules []*iptables.Rule
		var targets []string
		for _, text := range kubeJumps[ct.name][name] {
			r, err := iptables.ParseRule("-A " + name + " " + text)
			if err != nil {
				panic(fmt.Sprintf("bad built-in jump rule %q: %v", text, err))
			}
			if ct.chain(r.Target) >= 0 {
				rules = append(rules, r)
				targets = append(targets, r.Target)
			}
		}
		cc := compiledChain{name: name, rules: make([]compiledRule, len(rules))}
		for i, r := range rules {
			if err := compileRule(&cc.rules[i], r, ct); err != nil {
				panic(fmt.Sprintf("compile built-in jump rule %q: %v", r, err))
			}
		}
		ct.byName[name] = int32(len(ct.chains))
		ct.chains = append(ct.chains, cc)
		if len(targets) > 0 {
			notes = append(notes, fmt.Sprintf("%s %s -> %s", ct.name, name, strings.Join(targets, ", ")))
		}
	}
	return notes
}
