package verifytrace

import (
	"bufio"
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"sync/atomic"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/analyze"
)

// Meta is what a corpus dump says about its node in "# verify-trace:"
// header lines: "local=A,B" (the node's addresses besides its eth0
// address, put on a dummy interface), "ifaces=docker0,cni0" (dummy
// interfaces the rules name), "family=ip6" (an ip6tables dump, or an
// nftables ruleset for an IPv6 node: the lab runs IPv6 and the packets are
// IPv6).
type Meta struct {
	Local  []netip.Addr
	Ifaces []string
	IPv6   bool
}

// Fixed addresses of the scratch topology: the node's eth0 and the client,
// IPv4 and IPv6.
var (
	NodeAddr    = netip.MustParseAddr("192.168.0.2")
	ClientAddr  = netip.MustParseAddr("192.168.0.1")
	NodeAddr6   = netip.MustParseAddr("fd00:0:0:ffff::2")
	ClientAddr6 = netip.MustParseAddr("fd00:0:0:ffff::1")
)

// nodeAddr and clientAddr are the topology's addresses of the dump's family.
func (m Meta) nodeAddr() netip.Addr {
	if m.IPv6 {
		return NodeAddr6
	}
	return NodeAddr
}

func (m Meta) clientAddr() netip.Addr {
	if m.IPv6 {
		return ClientAddr6
	}
	return ClientAddr
}

// ReadMeta reads the "# verify-trace:" lines of a dump.
func ReadMeta(text []byte) (Meta, error) {
	var m Meta
	sc := bufio.NewScanner(bytes.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		rest, ok := strings.CutPrefix(sc.Text(), "# verify-trace:")
		if !ok {
			continue
		}
		for _, kv := range strings.Fields(rest) {
			k, v, _ := strings.Cut(kv, "=")
			for _, item := range strings.Split(v, ",") {
				switch k {
				case "local":
					a, err := netip.ParseAddr(item)
					if err != nil {
						return m, headerError(line, "local %q: %w", item, err)
					}
					m.Local = append(m.Local, a)
				case "ifaces":
					m.Ifaces = append(m.Ifaces, item)
				case "family":
					if item != "ip" && item != "ip6" {
						return m, headerError(line, "family %q: want ip or ip6", item)
					}
					m.IPv6 = item == "ip6"
				default:
					return m, headerError(line, "unknown key %q (want local, ifaces or family)", k)
				}
			}
		}
	}
	return m, nil
}

// headerError is a bad "# verify-trace:" line: bad input (analyze.DumpError).
func headerError(line int, format string, args ...any) error {
	return &analyze.DumpError{Err: fmt.Errorf("line %d: verify-trace header: "+format, append([]any{line}, args...)...)}
}

// lab is one node and one client namespace joined by a veth pair.
type lab struct {
	node, client string
	ipv6         bool // the dump is IPv6: load and save with ip6tables
	lease        *lease.Lease
}

var labSeq atomic.Int64

// newLab creates the namespaces, links, addresses and routes, under the
// process's lease (taken before the first namespace exists).
func newLab(m Meta) (*lab, error) {
	n := labSeq.Add(1)
	held, err := labs.Hold()
	if err != nil {
		return nil, fmt.Errorf("verify-trace: %w", err)
	}
	l := &lab{node: fmt.Sprintf("%s-%d-node", labs.Prefix, n), client: fmt.Sprintf("%s-%d-client", labs.Prefix, n), ipv6: m.IPv6, lease: held}
	for _, ns := range []string{l.node, l.client} {
		if err := netns.Create(ns); err != nil {
			l.close()
			return nil, fmt.Errorf("create netns %s: %w", ns, err)
		}
	}
	if err := l.configure(m); err != nil {
		l.close()
		return nil, err
	}
	return l, nil
}

func (l *lab) configure(m Meta) error {
	nodeMAC, clientMAC := "02:00:00:00:00:02", "02:00:00:00:00:01"
	cmds := [][]string{
		{l.node, "ip", "link", "add", "eth0", "address", nodeMAC, "type", "veth", "peer", "name", "eth0c", "address", clientMAC, "netns", l.client},
		{l.client, "ip", "link", "set", "eth0c", "name", "eth0"},
		// No link-local addresses: no duplicate address detection, router
		// solicitations or MLD reports from them adding stray ICMPv6.
		{l.node, "ip", "link", "set", "eth0", "addrgenmode", "none"}, {l.client, "ip", "link", "set", "eth0", "addrgenmode", "none"},
		{l.node, "ip", "link", "set", "lo", "up"}, {l.client, "ip", "link", "set", "lo", "up"},
		{l.node, "ip", "link", "set", "eth0", "up"}, {l.client, "ip", "link", "set", "eth0", "up"},
		// /32 on both sides: every forwarded packet goes to the client's
		// permanent neighbour entry, so no neighbour resolution times out
		// into ICMP errors (which would add OUTPUT traffic).
		{l.node, "ip", "addr", "add", NodeAddr.String() + "/32", "dev", "eth0"},
		{l.node, "ip", "route", "add", ClientAddr.String(), "dev", "eth0"},
		// /32 on the client, so every packet it sends goes via the node.
		{l.client, "ip", "addr", "add", ClientAddr.String() + "/32", "dev", "eth0"},
		{l.client, "ip", "route", "add", NodeAddr.String(), "dev", "eth0"},
		{l.node, "ip", "neigh", "replace", ClientAddr.String(), "lladdr", clientMAC, "dev", "eth0", "nud", "permanent"},
		{l.client, "ip", "neigh", "replace", NodeAddr.String(), "lladdr", nodeMAC, "dev", "eth0", "nud", "permanent"},
		{l.node, "ip", "route", "add", "default", "via", ClientAddr.String(), "dev", "eth0"},
		{l.client, "ip", "route", "add", "default", "via", NodeAddr.String(), "dev", "eth0"},
		// No dummy module here: a veth pair inside the node stands in.
		{l.node, "ip", "link", "add", "svl-local0", "type", "veth", "peer", "name", "svl-local0p"},
		{l.node, "ip", "link", "set", "svl-local0", "up"},
	}
	if m.IPv6 {
		cmds = append(cmds, ipv6Setup(l, nodeMAC, clientMAC)...)
	}
	for _, a := range m.Local {
		bits := "/32"
		if a.Is6() {
			bits = "/128"
		}
		cmds = append(cmds, []string{l.node, "ip", "addr", "add", a.String() + bits, "dev", "svl-local0", "nodad"})
	}
	// Each interface the dump names is a veth to the client, both ends with
	// one MAC and the client end NOARP, so the client can send any
	// destination in on it (bound to its end) without neighbour resolution.
	for n, i := range m.Ifaces {
		mac, peer := fmt.Sprintf("02:00:00:00:01:%02x", n), clientIface(n)
		cmds = append(cmds,
			[]string{l.node, "ip", "link", "add", i, "address", mac, "type", "veth", "peer", "name", peer, "address", mac, "netns", l.client},
			[]string{l.node, "ip", "link", "set", i, "up"},
			[]string{l.client, "ip", "link", "set", peer, "arp", "off", "up"},
			[]string{l.node, "sysctl", "-qw", "net.ipv4.conf." + strings.ReplaceAll(i, ".", "/") + ".rp_filter=0"})
	}
	disable6 := "net.ipv6.conf.all.disable_ipv6=1"
	if m.IPv6 {
		disable6 = "net.ipv6.conf.all.forwarding=1"
	}
	for _, kv := range []string{
		disable6, "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
		"net.ipv4.conf.eth0.rp_filter=0", "net.ipv4.conf.all.send_redirects=0", "net.ipv4.conf.eth0.send_redirects=0", "net.ipv4.conf.all.route_localnet=1",
		// Packets carry a wrong L4 checksum so that no RST, ICMP error or
		// REJECT reply adds OUTPUT traffic; conntrack must not mind.
		"net.netfilter.nf_conntrack_checksum=0",
	} {
		cmds = append(cmds, []string{l.node, "sysctl", "-qw", kv})
	}
	for _, c := range cmds {
		if _, err := netns.Output(c[0], nil, c[1:]...); err != nil {
			return fmt.Errorf("set up the verify-trace lab: %w", err)
		}
	}
	return nil
}

// ipv6Setup is the IPv6 half of the topology: /128 addresses without
// duplicate address detection, permanent neighbours and default routes
// both ways, no router advertisements or redirects (no stray ICMPv6).
func ipv6Setup(l *lab, nodeMAC, clientMAC string) [][]string {
	var cmds [][]string
	for _, ns := range []string{l.node, l.client} {
		for _, kv := range []string{"net.ipv6.conf.all.accept_ra=0", "net.ipv6.conf.default.accept_ra=0", "net.ipv6.conf.eth0.accept_ra=0",
			"net.ipv6.conf.all.accept_redirects=0", "net.ipv6.conf.eth0.router_solicitations=0"} {
			cmds = append(cmds, []string{ns, "sysctl", "-qw", kv})
		}
	}
	return append(cmds,
		[]string{l.node, "ip", "-6", "addr", "add", NodeAddr6.String() + "/128", "dev", "eth0", "nodad"},
		[]string{l.node, "ip", "-6", "route", "add", ClientAddr6.String(), "dev", "eth0"},
		[]string{l.client, "ip", "-6", "addr", "add", ClientAddr6.String() + "/128", "dev", "eth0", "nodad"},
		[]string{l.client, "ip", "-6", "route", "add", NodeAddr6.String(), "dev", "eth0"},
		[]string{l.node, "ip", "-6", "neigh", "replace", ClientAddr6.String(), "lladdr", clientMAC, "dev", "eth0", "nud", "permanent"},
		[]string{l.client, "ip", "-6", "neigh", "replace", NodeAddr6.String(), "lladdr", nodeMAC, "dev", "eth0", "nud", "permanent"},
		[]string{l.node, "ip", "-6", "route", "add", "default", "via", ClientAddr6.String(), "dev", "eth0"},
		[]string{l.client, "ip", "-6", "route", "add", "default", "via", NodeAddr6.String(), "dev", "eth0"})
}

// clientIface is the client end of the n-th named interface.
func clientIface(n int) string { return fmt.Sprintf("svl-c%d", n) }

// loadIPSets restores `ipset save` output into the node namespace.
func (l *lab) loadIPSets(text []byte) error {
	if _, err := netns.Output(l.node, text, "ipset", "restore"); err != nil {
		return fmt.Errorf("load the ipsets: %w", err)
	}
	return nil
}

// load restores the dump into the node namespace with iptables-legacy,
// with --noflush as kube-proxy does (a table given twice continues).
func (l *lab) load(dump []byte) error {
	if _, err := netns.Output(l.node, dump, l.tool("restore"), "--wait", "--counters", "--noflush"); err != nil {
		return fmt.Errorf("load the dump: %w", err)
	}
	return nil
}

// save reads the node's rules with their counters.
func (l *lab) save() ([]byte, error) {
	return netns.Output(l.node, nil, l.tool("save"), "-c")
}

// tool is iptables-legacy-restore or -save, ip6tables for an IPv6 dump.
func (l *lab) tool(verb string) string {
	if l.ipv6 {
		return "ip6tables-legacy-" + verb
	}
	return "iptables-legacy-" + verb
}

// close removes the namespaces and ends the lab's hold on the lease (kept
// for `svclab cleanup` if a namespace could not be removed).
func (l *lab) close() {
	removed := true
	for _, ns := range []string{l.node, l.client} {
		if netns.Exists(ns) && netns.Delete(ns) != nil {
			removed = false
		}
	}
	_ = labs.Drop(removed)
}
