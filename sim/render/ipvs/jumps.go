package ipvs

import (
	"io"

	"github.com/svclab/svclab/sim/render"
)

// jumpRules are IPVS mode's iptablesJumpChain entries, in the order
// kube-proxy ensures them (EnsureRule Prepend: `iptables -C`, then `-I`),
// so within one built-in chain the last one ensured ends up first.
var jumpRules = []struct{ table, chain, comment, target string }{
	{"nat", "OUTPUT", "kubernetes service portals", "KUBE-SERVICES"},
	{"nat", "PREROUTING", "kubernetes service portals", "KUBE-SERVICES"},
	{"nat", "POSTROUTING", "kubernetes postrouting rules", "KUBE-POSTROUTING"},
	{"filter", "FORWARD", "kubernetes forwarding rules", "KUBE-FORWARD"},
	{"filter", "INPUT", "kubernetes health check rules", "KUBE-NODE-PORT"},
	{"filter", "INPUT", "kube-proxy firewall rules", "KUBE-PROXY-FIREWALL"},
	{"filter", "FORWARD", "kube-proxy firewall rules", "KUBE-PROXY-FIREWALL"},
	{"filter", "INPUT", "kubernetes ipvs access filter", "KUBE-IPVS-FILTER"},
	{"filter", "OUTPUT", "kubernetes ipvs access filter", "KUBE-IPVS-OUT-FILTER"},
}

// RenderJumps writes the jumps from the built-in chains into kube-proxy's
// chains as a restore payload (`-I CHAIN 1 ...`, applied in kube-proxy's
// order) to load with --noflush after RenderIPTables' payload.
func RenderJumps(w io.Writer) (render.Stats, error) {
	rw := render.NewWriter(w)
	for _, table := range []string{"nat", "filter"} {
		rw.Line("*", table)
		for _, j := range jumpRules {
			if j.table != table {
				continue
			}
			rw.Line("-I ", j.chain, " 1 -m comment --comment \"", j.comment, "\" -j ", j.target)
			rw.CountRule()
		}
		rw.Line("COMMIT")
	}
	return rw.Flush()
}
