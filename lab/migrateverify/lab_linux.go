package migrateverify

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/netns"
)

// gateway is the pods' and external client's next hop (the node's end of
// each veth, by a permanent neighbour entry), upstreamGW the node's
// default route's (upstream's end).
// gateway6 and upstreamGW6 are their IPv6 (link-local) counterparts.
const (
	gateway     = "169.254.1.1"
	upstreamGW  = "169.254.1.2"
	gateway6    = "fe80::1"
	upstreamGW6 = "fe80::2"
)

// hostPrefix is a as a host prefix (/32 or /128) for ip.
func hostPrefix(a netip.Addr) string {
	return netip.PrefixFrom(a, a.BitLen()).String()
}

// nodad is ip's flag that skips duplicate address detection (IPv6).
func nodad(a netip.Addr) string {
	if a.Is6() {
		return " nodad"
	}
	return ""
}

// lab is one built lab: its namespaces and the servers in them.
type lab struct {
	prefix                string
	node, client, ext, up string
	pods                  map[netip.Addr]string
	created               []string
	servers               []io.Closer
	lease                 *lease.Lease
}

var labSeq atomic.Int64

// build creates the lab for pl under the process's lease.
func build(pl labPlan) (*lab, error) {
	held, err := labs.Hold()
	if err != nil {
		return nil, fmt.Errorf("migrate --verify: %w", err)
	}
	p := fmt.Sprintf("%s-%d", labs.Prefix, labSeq.Add(1))
	l := &lab{prefix: p, node: p + "-node", client: p + "-client", ext: p + "-ext", up: p + "-up", pods: map[netip.Addr]string{}, lease: held}
	for i, a := range sortedAddrs(pl.pods) {
		l.pods[a] = fmt.Sprintf("%s-p%d", p, i)
	}
	if err := l.create(pl); err != nil {
		l.close()
		return nil, fmt.Errorf("migrate --verify: build the lab: %w", err)
	}
	return l, nil
}

func sortedAddrs[V any](m map[netip.Addr]V) []netip.Addr {
	var out []netip.Addr
	for a := range m {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b netip.Addr) int { return a.Compare(b) })
	return out
}

// mac is a locally administered MAC address: kind (1 node side, 2 far
// side) and link number n.
func mac(kind, n int) string { return fmt.Sprintf("02:00:%02x:00:%02x:%02x", kind, n>>8, n&0xff) }

// create makes the namespaces, links, addresses, routes and neighbours.
func (l *lab) create(pl labPlan) error {
	names := append([]string{l.node, l.client, l.ext, l.up}, mapValues(l.pods)...)
	for _, ns := range names {
		if err := netns.Create(ns); err != nil {
			return err
		}
		l.created = append(l.created, ns)
	}
	if err := l.sysctl(l.node, "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
		"net.ipv4.conf.all.send_redirects=0", "net.ipv4.conf.default.send_redirects=0",
		// REJECT's ICMP errors are rate-limited per client (about six in a
		// burst, then one a second): many probes from one client would
		// see the rest as timeouts.
		"net.ipv4.icmp_ratelimit=0", "net.ipv4.icmp_msgs_per_sec=100000", "net.ipv4.icmp_msgs_burst=100000",
		"net.ipv6.conf.all.forwarding=1", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0", "net.ipv6.icmp.ratelimit=0"); err != nil {
		return err
	}
	var node []string
	node = append(node, "link set lo up")
	for _, a := range pl.node {
		node = append(node, "addr add "+hostPrefix(a)+" dev lo"+nodad(a))
	}
	link := 0
	far := map[string][]string{}
	attach := func(dev, ns string, addrs []netip.Addr) {
		link++
		node = append(node, fmt.Sprintf("link add %s address %s type veth peer name eth0 address %s netns %s", dev, mac(1, link), mac(2, link), ns),
			"link set "+dev+" up")
		script := []string{"link set lo up", "link set eth0 up"}
		for _, a := range addrs {
			node = append(node, fmt.Sprintf("route add %s dev %s", hostPrefix(a), dev), fmt.Sprintf("neigh replace %s lladdr %s dev %s nud permanent", a, mac(2, link), dev))
			script = append(script, fmt.Sprintf("addr add %s dev eth0%s", hostPrefix(a), nodad(a)))
		}
		far[ns] = append(script, "route add "+gateway+" dev eth0 scope link",
			fmt.Sprintf("neigh replace %s lladdr %s dev eth0 nud permanent", gateway, mac(1, link)),
			"route add default via "+gateway+" dev eth0",
			fmt.Sprintf("neigh replace %s lladdr %s dev eth0 nud permanent", gateway6, mac(1, link)),
			"route add ::/0 via "+gateway6+" dev eth0")
	}
	if len(pl.client) > 0 {
		attach("cl0", l.client, pl.client)
	}
	if len(pl.external) > 0 {
		attach("ext0", l.ext, pl.external)
	}
	for i, a := range sortedAddrs(pl.pods) {
		attach(fmt.Sprintf("pod%d", i), l.pods[a], []netip.Addr{a})
	}
	attach("up0", l.up, nil)
	upLink := link
	node = append(node, "route add "+upstreamGW+" dev up0 scope link",
		fmt.Sprintf("neigh replace %s lladdr %s dev up0 nud permanent", upstreamGW, mac(2, upLink)),
		"route add default via "+upstreamGW+" dev up0",
		fmt.Sprintf("neigh replace %s lladdr %s dev up0 nud permanent", upstreamGW6, mac(2, upLink)),
		"route add ::/0 via "+upstreamGW6+" dev up0")
	for _, a := range pl.upstream {
		far[l.up] = append(far[l.up], "route add local "+hostPrefix(a)+" dev lo")
	}
	if err := ipBatch(l.node, node); err != nil {
		return err
	}
	for ns, script := range far {
		if err := ipBatch(ns, script); err != nil {
			return err
		}
	}
	return nil
}

func mapValues(m map[netip.Addr]string) []string {
	var out []string
	for _, a := range sortedAddrs(m) {
		out = append(out, m[a])
	}
	return out
}

// ipBatch runs `ip -batch -` with the commands in namespace ns.
func ipBatch(ns string, cmds []string) error {
	if _, err := netns.Output(ns, []byte(strings.Join(cmds, "\n")+"\n"), "ip", "-batch", "-"); err != nil {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	return nil
}

// sysctl sets kernel parameters in namespace ns.
func (l *lab) sysctl(ns string, kv ...string) error {
	if _, err := netns.Output(ns, nil, append([]string{"sysctl", "-qw"}, kv...)...); err != nil {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	return nil
}

// close stops the servers, removes the namespaces and ends the lab's hold
// on the lease (kept for `svclab cleanup` if a namespace stayed).
func (l *lab) close() {
	for _, s := range l.servers {
		_ = s.Close()
	}
	removed := true
	for _, ns := range l.created {
		if netns.Exists(ns) && netns.Delete(ns) != nil {
			removed = false
		}
	}
	_ = labs.Drop(removed)
}

// errNoLab is returned by a probe sent from a namespace the lab lacks.
var errNoLab = errors.New("the lab has no namespace for this client")
