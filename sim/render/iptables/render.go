package iptables

import (
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Fixed chain names.
const (
	chainServices         = "KUBE-SERVICES"
	chainExternalServices = "KUBE-EXTERNAL-SERVICES"
	chainForward          = "KUBE-FORWARD"
	chainNodePorts        = "KUBE-NODEPORTS"
	chainProxyFirewall    = "KUBE-PROXY-FIREWALL"
	chainFirewall         = "KUBE-FIREWALL"
	chainPostrouting      = "KUBE-POSTROUTING"
	chainMarkMasq         = "KUBE-MARK-MASQ"
)

// node is what kube-proxy's CategorizeEndpoints knows of the node it runs
// on: its name and its topology.kubernetes.io/zone label.
type node struct{ name, zone string }

// renderer carries what every rule needs.
type renderer struct {
	w       *render.Writer
	cluster model.Cluster // the settings of family
	family  model.Family
	node    node
	ports   nodePorts
	opts    Options
	mark    string
	large   bool
	// updated, when set, limits per-service chains to the services it
	// accepts (a partial sync); nil writes every service's chains.
	updated func(i int) bool
	// stale tracks the chains of the previous services (partial sync).
	stale *staleChains
}

// writesChains reports whether service i's own chains are written.
func (r *renderer) writesChains(i int) bool { return r.updated == nil || r.updated(i) }

// Render streams the full-sync restore payload for m to w, as kube-proxy
// would pass it to `iptables-restore --noflush --counters`, or, when
// m.Family is IPv6, to ip6tables-restore. m is normally one family's
// projection (model.ForFamily); the services of another family's model
// are projected as they are read, and those without a ClusterIP of the
// family (headless, ExternalName, single-stack of the other family) are
// skipped as kube-proxy skips them.
func Render(w io.Writer, m *model.Model, opts Options) (render.Stats, error) {
	return RenderPartial(w, m, opts, nil)
}

// RenderPartial streams kube-proxy's partial-sync payload (KEP-3453,
// "minimize iptables-restore"): every top-level chain (KUBE-SERVICES,
// KUBE-NODEPORTS, KUBE-POSTROUTING, KUBE-MARK-MASQ and the filter chains) is
// rewritten in full, but only the services for which updated(i) is true get
// their KUBE-SVC/KUBE-EXT/KUBE-SEP chains declared and written; the kernel
// keeps the others as they are under --noflush. A nil updated is a full sync.
//
// previous are the services as the last sync wrote them, for each service
// that changed or was deleted since (a service that is gone, or whose
// endpoints changed). kube-proxy deletes the service chains it finds in
// the kernel and no longer uses: every chain of a previous service that no
// service of m has any more gets a `:CHAIN - [0:0]` line after the other
// nat chain declarations, which flushes it, and a `-X CHAIN` line after the
// service rules, in the order of previous. (kube-proxy orders them by map
// iteration, and in large-cluster mode deletes them at most once per
// syncPeriod: pass no previous on the syncs where it would not.)
func RenderPartial(w io.Writer, m *model.Model, opts Options, updated func(i int) bool, previous ...model.Service) (render.Stats, error) {
	if err := checkModel(m); err != nil {
		return render.Stats{}, err
	}
	if err := opts.Version.Validate(); err != nil {
		return render.Stats{}, fmt.Errorf("render iptables: %w", err)
	}
	c := m.Cluster.ForFamily(m.Family)
	r := &renderer{
		w:       render.NewWriter(w),
		cluster: c,
		family:  m.Family,
		node:    node{name: c.NodeName, zone: c.NodeZone},
		ports:   newNodePorts(c, opts.Flags, m.Family),
		opts:    opts,
		mark:    c.MasqueradeMark(),
		large:   model.TotalEndpoints(m.Services) > opts.LargeClusterThreshold,
		updated: updated,
	}
	r.stale = newStaleChains(r, previous)
	r.filterTable(m.Services)
	r.natTable(m.Services)
	return r.w.Flush()
}

func checkModel(m *model.Model) error {
	if m == nil || m.Services == nil {
		return fmt.Errorf("render iptables: no model")
	}
	return nil
}

// chainLine declares a chain as utiliptables.MakeChainLine does.
func (r *renderer) chainLine(name string) {
	r.w.Line(":", name, " - [0:0]")
	r.w.CountChain()
}

// rule writes one -A line from space-joined tokens.
func (r *renderer) rule(parts ...string) {
	r.w.Line(parts...)
	r.w.CountRule()
}

func (r *renderer) filterTable(services model.List) {
	r.w.Line("*filter")
	for _, c := range []string{chainServices, chainExternalServices, chainForward, chainNodePorts, chainProxyFirewall} {
		r.chainLine(c)
	}
	if r.family == model.IPv4 && r.ports.localhost {
		r.chainLine(chainFirewall)
		r.rule(`-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`)
	}
	for i := 0; i < services.Len(); i++ {
		if s := r.service(services, i); s != nil {
			r.serviceFilterRules(s)
		}
	}
	r.forwardRules()
	r.w.Line("COMMIT")
}

func (r *renderer) forwardRules() {
	if !r.opts.ConntrackLiberal {
		if r.opts.NFAcct {
			r.rule("-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP")
		} else {
			r.rule("-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP")
		}
	}
	r.rule(`-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark `, r.mark, "/", r.mark, " -j ACCEPT")
	r.rule(`-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`)
}

func (r *renderer) natTable(services model.List) {
	r.w.Line("*nat")
	for _, c := range []string{chainServices, chainNodePorts, chainPostrouting, chainMarkMasq} {
		r.chainLine(c)
	}
	for i := 0; i < services.Len(); i++ {
		s := r.service(services, i)
		if s == nil {
			continue
		}
		if r.writesChains(i) {
			r.natChains(s, r.chainLine)
		}
		r.stale.markActive(s)
	}
	deleted := r.stale.list()
	for _, c := range deleted {
		r.w.Line(":", c, " - [0:0]")
	}
	r.postroutingRules()
	for i := 0; i < services.Len(); i++ {
		if s := r.service(services, i); s != nil {
			r.serviceNatRules(s, r.writesChains(i))
		}
	}
	for _, c := range deleted {
		r.w.Line("-X ", c)
	}
	r.nodePortsTail()
	r.w.Line("COMMIT")
}

// service returns service i as the family's proxier sees it, or nil when
// kube-proxy skips it.
func (r *renderer) service(services model.List, i int) *model.Service {
	s := project(services.At(i), r.family)
	if s.Skipped() {
		return nil
	}
	return s
}

const nodePortsComment = `-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain"`

// nodePortsTail writes the jump to KUBE-NODEPORTS that ends nat
// KUBE-SERVICES: for every local address (not the loopback ones unless
// localhost NodePorts are on), or one per node address that
// --nodeport-addresses selects.
func (r *renderer) nodePortsTail() {
	if r.ports.matchAll {
		switch {
		case r.family == model.IPv6:
			r.rule(nodePortsComment, " -m addrtype --dst-type LOCAL ! -d ::1/128 -j KUBE-NODEPORTS")
		case !r.ports.localhost:
			r.rule(nodePortsComment, " -m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j KUBE-NODEPORTS")
		default:
			r.rule(nodePortsComment, " -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS")
		}
		return
	}
	for _, a := range r.ports.addrs {
		if a.IsLoopback() && (r.family == model.IPv6 || !r.ports.localhost) {
			continue
		}
		r.rule(nodePortsComment, " -d ", a.String(), " -j KUBE-NODEPORTS")
	}
}

func (r *renderer) postroutingRules() {
	r.rule("-A KUBE-POSTROUTING -m mark ! --mark ", r.mark, "/", r.mark, " -j RETURN")
	r.rule("-A KUBE-POSTROUTING -j MARK --xor-mark ", r.mark)
	masq := `-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE`
	if r.opts.RandomFully || r.opts.Version.AlwaysRandomFully() {
		masq += " --random-fully"
	}
	r.rule(masq)
	r.rule("-A KUBE-MARK-MASQ -j MARK --or-mark ", r.mark)
}
