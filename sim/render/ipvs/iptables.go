package ipvs

import (
	"io"
	"strconv"

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
// loads it with `iptables-restore --noflush --counters` (ip6tables-restore
// for IPv6). The rules match ipsets, so they depend only on which sets are
// empty, plus one KUBE-IPVS-OUT-FILTER drop per load-balancer IP:port whose
// source ranges leave the node out. Stats: Rules counts -A lines, Chains
// the chain declarations.
func RenderIPTables(w io.Writer, m *model.Model, opts Options) (render.Stats, error) {
	c, err := takeCensus(m, opts, false)
	if err != nil {
		return render.Stats{}, err
	}
	return renderIPTables(w, m.Cluster, c)
}

func renderIPTables(w io.Writer, cl model.Cluster, c *census) (render.Stats, error) {
	rw := render.NewWriter(w)
	t := tables{rw: rw, mark: cl.MasqueradeMark(), n: &c.node, c: c}
	t.declare("nat", natChains)
	t.natRules(cl)
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
	n    *node
	c    *census
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
func (t tables) matchSet(id setID, dirs string) string {
	return "-m comment --comment " + setDefs[id].quotedComment() + " -m set --match-set " + t.n.setName(id) + " " + dirs
}

// setJump is one entry of kube-proxy's ipsetWithIptablesChain: a rule
// written only when its set is non-empty.
type setJump struct {
	id                 setID
	filter             bool
	chain, dirs        string
	proto, destination string
}

// setJumps are ipsetWithIptablesChain, in its order.
var setJumps = []setJump{
	{setLoopBack, false, "KUBE-POSTROUTING", "dst,dst,src", "", "MASQUERADE"},
	{setLoadBalancer, false, "KUBE-SERVICES", "dst,dst", "", "KUBE-LOAD-BALANCER"},
	{setLoadBalancerLocal, false, "KUBE-LOAD-BALANCER", "dst,dst", "", "RETURN"},
	{setNodePortLocalTCP, false, "KUBE-NODE-PORT", "dst", "tcp", "RETURN"},
	{setNodePortTCP, false, "KUBE-NODE-PORT", "dst", "tcp", "KUBE-MARK-MASQ"},
	{setNodePortLocalUDP, false, "KUBE-NODE-PORT", "dst", "udp", "RETURN"},
	{setNodePortUDP, false, "KUBE-NODE-PORT", "dst", "udp", "KUBE-MARK-MASQ"},
	{setNodePortLocalSCTP, false, "KUBE-NODE-PORT", "dst,dst", "sctp", "RETURN"},
	{setNodePortSCTP, false, "KUBE-NODE-PORT", "dst,dst", "sctp", "KUBE-MARK-MASQ"},
	{setLoadBalancerFW, true, "KUBE-PROXY-FIREWALL", "dst,dst", "", "KUBE-SOURCE-RANGES-FIREWALL"},
	{setLoadBalancerSourceCIDR, true, "KUBE-SOURCE-RANGES-FIREWALL", "dst,dst,src", "", "RETURN"},
	{setLoadBalancerSourceIP, true, "KUBE-SOURCE-RANGES-FIREWALL", "dst,dst,src", "", "RETURN"},
}

// writeSetJumps writes the non-empty sets' jumps of one table.
func (t tables) writeSetJumps(filter bool) {
	for _, j := range setJumps {
		if j.filter != filter || t.c.empty(j.id) {
			continue
		}
		proto := ""
		if j.proto != "" {
			proto = "-p " + j.proto + " "
		}
		t.rule("-A ", j.chain, " ", proto, t.matchSet(j.id, j.dirs), " -j ", j.destination)
	}
}

// natRules writes the nat table's rules in kube-proxy's order.
func (t tables) natRules(cl model.Cluster) {
	t.rule("-A KUBE-SERVICES -s ", loopbackCIDR(t.n.family), " -j RETURN")
	t.writeSetJumps(false)
	if !t.c.empty(setClusterIP) {
		t.rule("-A KUBE-SERVICES ", t.clusterIPMasquerade(cl), " -j KUBE-MARK-MASQ")
	}
	if !t.c.empty(setExternalIP) {
		match := "-A KUBE-SERVICES " + t.matchSet(setExternalIP, "dst,dst")
		t.rule(match, " -j KUBE-MARK-MASQ")
		t.externalIPRules(match)
	}
	if !t.c.empty(setExternalIPLocal) {
		t.externalIPRules("-A KUBE-SERVICES " + t.matchSet(setExternalIPLocal, "dst,dst"))
	}
	t.rule("-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT")
	t.rule("-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ")
	for _, id := range []setID{setClusterIP, setLoadBalancer} { // acceptIPVSTraffic
		if !t.c.empty(id) {
			t.rule("-A KUBE-SERVICES -m set --match-set ", t.n.setName(id), " dst,dst -j ACCEPT")
		}
	}
	t.rule("-A KUBE-POSTROUTING -m mark ! --mark ", t.mark, "/", t.mark, " -j RETURN")
	t.rule("-A KUBE-POSTROUTING -j MARK --xor-mark ", t.mark)
	masq := "-A KUBE-POSTROUTING -m comment --comment \"kubernetes service traffic requiring SNAT\" -j MASQUERADE"
	if t.c.opts.RandomFully || t.c.opts.Version.AlwaysRandomFully() {
		masq += " --random-fully"
	}
	t.rule(masq)
	t.rule("-A KUBE-MARK-MASQ -j MARK --or-mark ", t.mark)
}

// externalIPRules are kube-proxy's two ACCEPT rules for external IPs:
// traffic from off the machine, and traffic to an address that is local.
func (t tables) externalIPRules(match string) {
	t.rule(match, " -m physdev ! --physdev-is-in -m addrtype ! --src-type LOCAL -j ACCEPT")
	t.rule(match, " -m addrtype --dst-type LOCAL -j ACCEPT")
}

// loopbackCIDR is the source kube-proxy returns from KUBE-SERVICES early.
func loopbackCIDR(f model.Family) string {
	if f == model.IPv6 {
		return "::1/128"
	}
	return "127.0.0.0/8"
}

// clusterIPMasquerade is the KUBE-CLUSTER-IP match of the masquerade rule:
// all traffic with --masquerade-all, traffic from outside the cluster CIDR
// with a local detector, else node-originated traffic from a VIP.
func (t tables) clusterIPMasquerade(cl model.Cluster) string {
	switch {
	case t.c.opts.Flags.MasqueradeAll:
		return t.matchSet(setClusterIP, "dst,dst")
	case cl.ClusterCIDR.IsValid():
		return t.matchSet(setClusterIP, "dst,dst") + " ! -s " + cl.ClusterCIDR.Masked().String()
	}
	return t.matchSet(setClusterIP, "src,dst")
}

// filterRules writes the filter table's rules in kube-proxy's order.
func (t tables) filterRules() {
	t.writeSetJumps(true)
	t.rule("-A KUBE-SOURCE-RANGES-FIREWALL -j DROP")
	for _, e := range t.c.blocked {
		ip := e.ip.String()
		t.rule("-A KUBE-IPVS-OUT-FILTER -s ", ip, " -m ipvs --vaddr ", ip, " --vproto ", e.proto, " --vport ", strconv.Itoa(e.port), " -j DROP")
	}
	t.rule("-A KUBE-FORWARD -m comment --comment \"kubernetes forwarding rules\" -m mark --mark ", t.mark, "/", t.mark, " -j ACCEPT")
	t.rule("-A KUBE-FORWARD -m comment --comment \"kubernetes forwarding conntrack rule\" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT")
	t.rule("-A KUBE-NODE-PORT ", t.matchSet(setHealthCheckNodePort, "dst"), " -j ACCEPT")
	for _, id := range []setID{setLoadBalancer, setClusterIP, setExternalIP, setExternalIPLocal} {
		t.rule("-A KUBE-IPVS-FILTER -m set --match-set ", t.n.setName(id), " dst,dst -j RETURN")
	}
	t.rule("-A KUBE-IPVS-FILTER -m set --match-set ", t.n.setName(setHealthCheckNodePort), " dst -j RETURN")
	t.rule("-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set ", t.n.setName(setIPVSIPs), " dst -j REJECT")
}
