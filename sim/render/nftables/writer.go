package nftables

import (
	"net/netip"
	"strconv"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// renderer writes knftables-style lines for one transaction.
type renderer struct {
	w       *render.Writer
	cluster model.Cluster
	opts    Options
	syntax
	mark          string // "0x00004000"
	notLocal      string // "ip saddr != 10.0.0.0/8 ", or "" without a detector
	isLocal       string // "ip saddr 10.0.0.0/8 ", or "" without a detector
	nodePortMatch string // "ip daddr != 127.0.0.0/8 " or "ip daddr @nodeport-ips "
	nodePorts     nodePortAddresses
	parts         []string
	indexes       []string // "0", "1", ... reused by numgen lines
	// releaseFacts are Options.Version's facts (facts.go).
	releaseFacts
	// hairpins holds the hairpin-connections elements written so far:
	// kube-proxy's element storage writes each key once per transaction.
	hairpins map[hairpinKey]struct{}
	// lastClusterIP is the ClusterIP whose cluster-ips element was written
	// last, so a multi-port service adds it once (kube-proxy's ensureElem).
	lastClusterIP string
	// elemBuf and portElems are the element buffers of the port being
	// written: all its elements, and those written so far.
	elemBuf, portElems []element
}

// hairpinKey is a hairpin-connections element, packed small for the
// per-transaction maps: endpoint address (source and destination, as 16
// bytes), protocol and port.
type hairpinKey struct {
	addr  [16]byte
	port  uint16
	proto uint8
}

// protoCodes number the protocols in hairpin keys.
var protoCodes = map[string]uint8{"tcp": 1, "udp": 2, "sctp": 3}

// newHairpinKey is the element of an endpoint.
func newHairpinKey(ip netip.Addr, proto string, port int) hairpinKey {
	return hairpinKey{addr: ip.As16(), port: uint16(port), proto: protoCodes[proto]}
}

// ip returns the key's address.
func (k hairpinKey) ip() netip.Addr { return netip.AddrFrom16(k.addr).Unmap() }

func newRenderer(w *render.Writer, c model.Cluster, f model.Family, opts Options) *renderer {
	r := &renderer{w: w, cluster: c, opts: opts, syntax: syntaxOf(f), mark: c.MasqueradeMark(), releaseFacts: factsOf(opts.Version)}
	if r.direct {
		r.hairpins = map[hairpinKey]struct{}{}
	}
	if c.ClusterCIDR.IsValid() {
		cidr := c.ClusterCIDR.Masked().String()
		r.isLocal = r.ipX + " saddr " + cidr + " "
		if !opts.Flags.MasqueradeAll {
			r.notLocal = r.ipX + " saddr != " + cidr + " "
		}
	}
	r.nodePorts = resolveNodePorts(c, opts.Flags, f)
	r.nodePortMatch = r.ipX + " daddr @" + setNodePortIPs + " "
	if r.nodePorts.matchAll {
		r.nodePortMatch = r.notLocalhost + " "
	}
	return r
}

// masqueradeAll is --masquerade-all.
func (r *renderer) masqueradeAll() bool { return r.opts.Flags.MasqueradeAll }

// portContext is what naming ports needs from the renderer.
func (r *renderer) portContext() portContext {
	return portContext{node: r.cluster.NodeName, zone: r.cluster.NodeZone, nodeIP: r.cluster.NodeIP, family: r.family, releaseFacts: r.releaseFacts}
}

// hasLocalDetector reports whether kube-proxy would have a local-traffic
// detector (a cluster CIDR).
func (r *renderer) hasLocalDetector() bool { return r.cluster.ClusterCIDR.IsValid() }

// chain adds and flushes a regular chain (kube-proxy's ensureChain).
func (r *renderer) chain(name string) {
	r.w.Line("add chain ", r.table, " ", name)
	r.w.Line("flush chain ", r.table, " ", name)
	r.w.CountChain()
}

// rule adds a rule to chain.
func (r *renderer) rule(chain, body string) {
	r.w.Line("add rule ", r.table, " ", chain, " ", body)
	r.w.CountRule()
}

// addSet and addMap add a named set or map; body is what goes in braces.
func (r *renderer) addSet(name, body string) {
	r.w.Line("add set ", r.table, " ", name, " { ", body, " }")
	r.w.CountSet()
}

func (r *renderer) addMap(name, body string) {
	r.w.Line("add map ", r.table, " ", name, " { ", body, " }")
	r.w.CountSet()
}

// element adds one set element.
func (r *renderer) element(set, key string) {
	r.w.Line("add element ", r.table, " ", set, " { ", key, " }")
	r.w.CountElements(1)
}

// deleteElement deletes one element by key (no value, as knftables writes it).
func (r *renderer) deleteElement(m, key string) {
	r.w.Line("delete element ", r.table, " ", m, " { ", key, " }")
}

// index returns strconv.Itoa(i) from a cache, so numgen lines allocate nothing.
func (r *renderer) index(i int) string {
	for len(r.indexes) <= i {
		r.indexes = append(r.indexes, strconv.Itoa(len(r.indexes)))
	}
	return r.indexes[i]
}
