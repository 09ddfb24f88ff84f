package nftables

import (
	"net/netip"
	"strconv"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// renderer writes knftables-style lines for one transaction.
type renderer struct {
	w             *render.Writer
	cluster       model.Cluster
	opts          Options
	mark          string // "0x00004000"
	notLocal      string // "ip saddr != 10.0.0.0/8 ", or "" without a detector
	nodePortMatch string // "ip daddr != 127.0.0.0/8 " or "ip daddr @nodeport-ips "
	parts         []string
	indexes       []string // "0", "1", ... reused by numgen lines
	// direct is the v1.36+ layout (Options.Version): DNAT in the service
	// chain, hairpin-connections, no mark-for-masquerade chain.
	direct bool
	// hairpins holds the hairpin-connections elements written so far:
	// kube-proxy's element storage writes each key once per transaction.
	hairpins map[hairpinKey]struct{}
	// lastClusterIP is the ClusterIP whose cluster-ips element was written
	// last, so a multi-port service adds it once (kube-proxy's ensureElem).
	lastClusterIP string
}

// hairpinKey is a hairpin-connections element packed into an integer:
// endpoint IPv4 address (source and destination), protocol and port.
type hairpinKey uint64

// protoCodes number the protocols in hairpin keys.
var protoCodes = map[string]uint64{"tcp": 1, "udp": 2, "sctp": 3}

// newHairpinKey packs an element; an address that is not IPv4 gives 0,
// which no element has (protocol codes start at 1).
func newHairpinKey(ip netip.Addr, proto string, port int) hairpinKey {
	if !ip.Is4() {
		return 0
	}
	a := ip.As4()
	return hairpinKey(uint64(a[0])<<56 | uint64(a[1])<<48 | uint64(a[2])<<40 | uint64(a[3])<<32 | protoCodes[proto]<<16 | uint64(port&0xffff))
}

// ip returns the key's address.
func (k hairpinKey) ip() netip.Addr {
	return netip.AddrFrom4([4]byte{byte(k >> 56), byte(k >> 48), byte(k >> 40), byte(k >> 32)})
}

func newRenderer(w *render.Writer, c model.Cluster, opts Options) *renderer {
	r := &renderer{w: w, cluster: c, opts: opts, mark: c.MasqueradeMark(), direct: opts.Version.NFTablesDirectDNAT()}
	if r.direct {
		r.hairpins = map[hairpinKey]struct{}{}
	}
	switch {
	case opts.MasqueradeAll:
		r.notLocal = ""
	case c.ClusterCIDR.IsValid():
		r.notLocal = "ip saddr != " + c.ClusterCIDR.Masked().String() + " "
	}
	r.nodePortMatch = "ip daddr @" + setNodePortIPs + " "
	if opts.matchAllNodePorts() {
		r.nodePortMatch = "ip daddr != 127.0.0.0/8 "
	}
	return r
}

// hasLocalDetector reports whether kube-proxy would have a local-traffic
// detector (a cluster CIDR).
func (r *renderer) hasLocalDetector() bool { return r.cluster.ClusterCIDR.IsValid() }

// chain adds and flushes a regular chain (kube-proxy's ensureChain).
func (r *renderer) chain(name string) {
	r.w.Line("add chain ", table, " ", name)
	r.w.Line("flush chain ", table, " ", name)
	r.w.CountChain()
}

// rule adds a rule to chain.
func (r *renderer) rule(chain, body string) {
	r.w.Line("add rule ", table, " ", chain, " ", body)
	r.w.CountRule()
}

// addSet and addMap add a named set or map; body is what goes in braces.
func (r *renderer) addSet(name, body string) {
	r.w.Line("add set ", table, " ", name, " { ", body, " }")
	r.w.CountSet()
}

func (r *renderer) addMap(name, body string) {
	r.w.Line("add map ", table, " ", name, " { ", body, " }")
	r.w.CountSet()
}

// element adds one set element.
func (r *renderer) element(set, key string) {
	r.w.Line("add element ", table, " ", set, " { ", key, " }")
	r.w.CountElements(1)
}

// deleteElement deletes one element by key (no value, as knftables writes it).
func (r *renderer) deleteElement(m, key string) {
	r.w.Line("delete element ", table, " ", m, " { ", key, " }")
}

// index returns strconv.Itoa(i) from a cache, so numgen lines allocate nothing.
func (r *renderer) index(i int) string {
	for len(r.indexes) <= i {
		r.indexes = append(r.indexes, strconv.Itoa(len(r.indexes)))
	}
	return r.indexes[i]
}
