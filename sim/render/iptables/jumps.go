package iptables

import (
	"io"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// jumpRules are kube-proxy's iptablesJumpChains (plus kubelet's KUBE-FIREWALL
// jumps), in the order kube-proxy ensures them. Each is prepended (-I) to its
// built-in chain, so the last one ensured ends up first.
var jumpRules = []struct{ table, chain, rule string }{
	{"filter", "INPUT", `-m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES`},
	{"filter", "FORWARD", `-m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES`},
	{"filter", "INPUT", `-m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS`},
	{"filter", "FORWARD", `-m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES`},
	{"filter", "OUTPUT", `-m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES`},
	{"filter", "FORWARD", `-m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD`},
	{"filter", "INPUT", `-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`},
	{"filter", "OUTPUT", `-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`},
	{"filter", "FORWARD", `-m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`},
	{"filter", "INPUT", `-j KUBE-FIREWALL`},
	{"filter", "OUTPUT", `-j KUBE-FIREWALL`},
	{"nat", "OUTPUT", `-m comment --comment "kubernetes service portals" -j KUBE-SERVICES`},
	{"nat", "PREROUTING", `-m comment --comment "kubernetes service portals" -j KUBE-SERVICES`},
	{"nat", "POSTROUTING", `-m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING`},
}

// Jump is one jump rule from a built-in chain, as kube-proxy's EnsureRule
// gets it: the rule's arguments, ready for `iptables -C/-I TABLE CHAIN ...`.
type Jump struct {
	Table, Chain string
	Rule         string // the rule text, comment quoted
}

// Jumps returns the jump rules in the order kube-proxy ensures them, for a
// model with kube-proxy's default flags (IPv4, localhost NodePorts on). See
// ModelJumps.
func Jumps(opts Options) []Jump { return jumps(true) }

// ModelJumps returns the jump rules for m in the order kube-proxy ensures
// them. kube-proxy also creates KUBE-FIREWALL and its jumps when its
// restore payload leaves the chain out (IPv6, or localhost NodePorts off);
// the chain is empty then, so its jumps are left out here, and the
// payload stays loadable on its own.
func ModelJumps(m *model.Model, opts Options) []Jump {
	c := m.Cluster.ForFamily(m.Family)
	return jumps(m.Family == model.IPv4 && newNodePorts(c, opts.Flags, m.Family).localhost)
}

func jumps(firewall bool) []Jump {
	var out []Jump
	for _, j := range jumpRules {
		if !firewall && j.rule == "-j KUBE-FIREWALL" {
			continue
		}
		out = append(out, Jump{Table: j.table, Chain: j.chain, Rule: j.rule})
	}
	return out
}

// RenderJumps writes Jumps(opts) as a restore payload to load with
// --noflush after Render's payload (see RenderModelJumps).
func RenderJumps(w io.Writer, opts Options) (render.Stats, error) {
	return writeJumps(w, Jumps(opts))
}

// RenderModelJumps writes ModelJumps(m, opts) as a restore payload to load
// with --noflush after Render's payload for m.
func RenderModelJumps(w io.Writer, m *model.Model, opts Options) (render.Stats, error) {
	if err := checkModel(m); err != nil {
		return render.Stats{}, err
	}
	return writeJumps(w, ModelJumps(m, opts))
}

func writeJumps(w io.Writer, js []Jump) (render.Stats, error) {
	rw := render.NewWriter(w)
	for _, table := range []string{"filter", "nat"} {
		rw.Line("*", table)
		for _, j := range js {
			if j.Table != table {
				continue
			}
			rw.Line("-I ", j.Chain, " 1 ", j.Rule)
			rw.CountRule()
		}
		rw.Line("COMMIT")
	}
	return rw.Flush()
}
