package ipvs

import (
	"io"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Chains kube-proxy's IPVS mode declares (iptablesChains), per table.
var (
	natChains    = []string{"KUBE-SERVICES", "KUBE-POSTROUTING", "KUBE-NODE-PORT", "KUBE-LOAD-BALANCER", "KUBE-MARK-MASQ"}
	filterChains = []string{"KUBE-FORWARD", "KUBE-NODE-PORT", "KUBE-PROXY-FIREWALL", "KUBE-SOURCE-RANGES-FIREWALL", "KUBE-IPVS-FILTER", "KUBE-IPVS-OUT-FILTER"}
)

// RenderIPTables writes the iptables-restore payload of IPVS mode, nat
// table first then filter, as kube-proxy's writeIptablesRules does. kube-proxy
// loads it with `iptables-restore --noflush --counters`. The rule count does
// not grow with the number of services: rules match ipsets, and only
// depend on which sets are empty. Stats: Rules counts -A lines, Chains the
// chain declarations.
func RenderIPTables(w io.Writer, m *model.Model, opts Options) (render.Stats, error) {
	c, err := takeCensus(m, opts, true)
	if err != nil {
		return render.Stats{}, err
	}
	return renderIPTables(w, m.Cluster, opts, &c)
}

func renderIPTables(w io.Writer, cl model.Cluster, opts Options, c *census) (render.Stats, error) {
	rw := render.NewWriter(w)
	t := tables{rw: rw, mark: cl.MasqueradeMark()}
	t.declare("nat", natChains)
	t.natRules(cl, opts, c)
	rw.Line("COMMIT")
	t.declare("filter", filterChains)
	t.filterRules()
	rw.Line("COMMIT")
	return rw.Flush()
}

// tables writes the two tables' rules.
type tables struct {
	rw   *render.Writer
	mark string // e.g. 0x00004000
}

func (t tables) declare(table string, chains []string) {
	t.rw.Line("*", table)
	for _, ch := range chains {
		t.rw.Line(":", ch, " - [0:0]")
		t.rw.CountChain()
	}
}

func (t tables) rule(parts ...string) {
	t.rw.Line(parts...)
	t.rw.CountRule()
}

// matchSet is kube-proxy's `-m comment --comment "<set comment>" -m set
// --match-set <set> <dirs>` (ipsetWithIptablesChain and friends).
func matchSet(id setID, dirs string) string {
	d := setDefs[id]
	return "-m comment --comment " + d.quotedComment() + " -m set --match-set " + d.name + " " + dirs
}

// setJumps are the nat rules of kube-proxy's ipsetWithIptablesChain table,
// written only for non-empty sets. The filter-table entries concern
// LoadBalancer source ranges, which the model lacks.
var setJumps = []struct {
	id          setID
	chain, dirs string
	proto, to   string
}{
	{setLoopBack, "KUBE-POSTROUTING", "dst,dst,src", "", "MASQUERADE"},
	{setLoadBalancer, "KUBE-SERVICES", "dst,dst", "", "KUBE-LOAD-BALANCER"},
	{setLoadBalancerLocal, "KUBE-LOAD-BALANCER", "dst,dst", "", "RETURN"},
	{setNodePortLocalTCP, "KUBE-NODE-PORT", "dst", "tcp", "RETURN"},
	{setNodePortTCP, "KUBE-NODE-PORT", "dst", "tcp", "KUBE-MARK-MASQ"},
	{setNodePortLocalUDP, "KUBE-NODE-PORT", "dst", "udp", "RETURN"},
	{setNodePortUDP, "KUBE-NODE-PORT", "dst", "udp", "KUBE-MARK-MASQ"},
	{setNodePortLocalSCTP, "KUBE-NODE-PORT", "dst,dst", "sctp", "RETURN"},
	{setNodePortSCTP, "KUBE-NODE-PORT", "dst,dst", "sctp", "KUBE-MARK-MASQ"},
}

// natRules writes the nat table's rules in kube-proxy's order.
func (t tables) natRules(cl model.Cluster, opts Options, c *census) {
	t.rule("-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN")
	for _, j := range setJumps {
		if c.empty(j.id) {
			continue
		}
		proto := ""
		if j.proto != "" {
			proto = "-p " + j.proto + " "
		}
		t.rule("-A ", j.chain, " ", proto, matchSet(j.id, j.dirs), " -j ", j.to)
	}
	if !c.empty(setClusterIP) {
		t.rule("-A KUBE-SERVICES ", clusterIPMasquerade(cl, opts), " -j KUBE-MARK-MASQ")
	}
	t.rule("-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT")
	t.rule("-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ")
	for _, id := range []setID{setClusterIP, setLoadBalancer} { // acceptIPVSTraffic
		if !c.empty(id) {
			t.rule("-A KUBE-SERVICES -m set --match-set ", setDefs[id].name, " dst,dst -j ACCEPT")
		}
	}
	t.rule("-A KUBE-POSTROUTING -m mark ! --mark ", t.mark, "/", t.mark, " -j RETURN")
	t.rule("-A KUBE-POSTROUTING -j MARK --xor-mark ", t.mark)
	masq := "-A KUBE-POSTROUTING -m comment --comment \"kubernetes service traffic requiring SNAT\" -j MASQUERADE"
	if opts.RandomFully || opts.Version.AlwaysRandomFully() {
		masq += " --random-fully"
	}
	t.rule(masq)
	t.rule("-A KUBE-MARK-MASQ -j MARK --or-mark ", t.mark)
}

// clusterIPMasquerade is the KUBE-CLUSTER-IP match of the masquerade rule:
// all traffic with --masquerade-all, traffic from outside the cluster CIDR
// with a local detector, else node-originated traffic from a VIP.
func clusterIPMasquerade(cl model.Cluster, opts Options) string {
	switch {
	case opts.MasqueradeAll:
		return matchSet(setClusterIP, "dst,dst")
	case cl.ClusterCIDR.IsValid():
		return matchSet(setClusterIP, "dst,dst") + " ! -s " + cl.ClusterCIDR.Masked().String()
	}
	return matchSet(setClusterIP, "src,dst")
}

// filterRules writes the filter table's rules in kube-proxy's order.
func (t tables) filterRules() {
	t.rule("-A KUBE-SOURCE-RANGES-FIREWALL -j DROP")
	t.rule("-A KUBE-FORWARD -m comment --comment \"kubernetes forwarding rules\" -m mark --mark ", t.mark, "/", t.mark, " -j ACCEPT")
	t.rule("-A KUBE-FORWARD -m comment --comment \"kubernetes forwarding conntrack rule\" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT")
	t.rule("-A KUBE-NODE-PORT ", matchSet(setHealthCheckNodePort, "dst"), " -j ACCEPT")
	for _, id := range []setID{setLoadBalancer, setClusterIP, setExternalIP, setExternalIPLocal} {
		t.rule("-A KUBE-IPVS-FILTER -m set --match-set ", setDefs[id].name, " dst,dst -j RETURN")
	}
	t.rule("-A KUBE-IPVS-FILTER -m set --match-set ", setDefs[setHealthCheckNodePort].name, " dst -j RETURN")
	t.rule("-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set ", setDefs[setIPVSIPs].name, " dst -j REJECT")
}
