package topo

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/vishvananda/netlink"
	vnetns "github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
)

// podSideLink is the name of the veth end inside every pod namespace.
const podSideLink = "eth0"

// attachment is one namespace joined to the node by a veth pair: a backend
// pod, the client or the sink.
type attachment struct {
	netns    string
	hostVeth string
	ips      []netip.Addr // addresses on eth0; none for the sink
	sysctls  []sysctl     // besides hostSysctls
	// gateway is the IPv4 next hop of the default route; zero means
	// GatewayIP (a second node owns GatewayIP itself, so it needs another).
	gateway netip.Addr
}

// joined is what attach leaves open for the caller to finish the wiring:
// a netlink handle on the pod namespace and the two veth ends.
type joined struct {
	pod      *netlink.Handle
	hostLink netlink.Link
	podLink  netlink.Link
}

// close releases the pod namespace's netlink handle.
func (j *joined) close() { j.pod.Close() }

// attach creates the namespace of a, joins it to the node with a veth whose
// peer is created directly inside it, and gives it Calico-style addressing:
// IP/32 on eth0 and a default route through GatewayIP, whose MAC is the
// node-side veth's, entered as a permanent neighbour. The caller must close
// the result.
func (b *builder) attach(a attachment) (*joined, error) {
	if err := createRegistered(b.teardown, a.netns); err != nil {
		return nil, err
	}
	if err := writeSysctls(a.netns, append(append([]sysctl{}, hostSysctls...), a.sysctls...)); err != nil {
		return nil, err
	}
	podNs, err := netns.Open(a.netns)
	if err != nil {
		return nil, err
	}
	defer podNs.Close() // the veth peer is placed by the time attach returns
	pod, err := netlink.NewHandleAt(podNs)
	if err != nil {
		return nil, fmt.Errorf("netlink handle for netns %s: %w", a.netns, err)
	}
	j := &joined{pod: pod}
	if err := j.createVeth(b, a, podNs); err != nil {
		pod.Close()
		return nil, err
	}
	if err := j.addressPod(a); err != nil {
		pod.Close()
		return nil, err
	}
	return j, nil
}

// createVeth makes the pair in the node namespace with its peer born inside
// the pod namespace, then brings up both ends and the pod's loopback.
func (j *joined) createVeth(b *builder, a attachment, podNs vnetns.NsHandle) error {
	veth := &netlink.Veth{
		LinkAttrs:     netlink.LinkAttrs{Name: a.hostVeth},
		PeerName:      podSideLink,
		PeerNamespace: netlink.NsFd(podNs),
	}
	if err := b.node.LinkAdd(veth); err != nil {
		return fmt.Errorf("add veth %s in netns %s (peer %s in netns %s): %w", a.hostVeth, b.nodeNetns, podSideLink, a.netns, err)
	}
	var err error
	if j.hostLink, err = b.node.LinkByName(a.hostVeth); err != nil {
		return fmt.Errorf("find veth %s in netns %s: %w", a.hostVeth, b.nodeNetns, err)
	}
	if j.podLink, err = j.pod.LinkByName(podSideLink); err != nil {
		return fmt.Errorf("find veth %s in netns %s: %w", podSideLink, a.netns, err)
	}
	if err := setUp(j.pod, a.netns, "lo"); err != nil {
		return err
	}
	if err := setUp(j.pod, a.netns, podSideLink); err != nil {
		return err
	}
	return setUp(b.node, b.nodeNetns, a.hostVeth)
}

// addressPod gives the pod end its addresses, the default routes of both
// families and the gateways' permanent neighbour entries: IPv4 through
// GatewayIP (or a.gateway), IPv6 through the link-local GatewayIPv6.
func (j *joined) addressPod(a attachment) error {
	eth0 := j.podLink.Attrs().Index
	for _, ip := range a.ips {
		if err := addAddr(j.pod, a.netns, j.podLink, ip); err != nil {
			return err
		}
	}
	gw := a.gateway
	if !gw.IsValid() {
		gw = GatewayIP
	}
	gatewayRoute := &netlink.Route{LinkIndex: eth0, Dst: hostPrefix(gw), Scope: netlink.SCOPE_LINK}
	defaultRoute := &netlink.Route{LinkIndex: eth0, Gw: gw.AsSlice()}
	defaultRoute6 := &netlink.Route{LinkIndex: eth0, Dst: prefixNet(netip.MustParsePrefix("::/0")), Gw: GatewayIPv6.AsSlice()}
	for _, r := range []*netlink.Route{gatewayRoute, defaultRoute, defaultRoute6} {
		if err := addRoute(j.pod, a.netns, r); err != nil {
			return err
		}
	}
	mac := j.hostLink.Attrs().HardwareAddr
	if err := addNeighbour(j.pod, a.netns, eth0, gw, mac); err != nil {
		return err
	}
	return addNeighbour(j.pod, a.netns, eth0, GatewayIPv6, mac)
}

// routeToPod makes the node reach ips through the veth of j: a link-scoped
// host route each and a permanent neighbour entry with the pod end's MAC.
func (b *builder) routeToPod(j *joined, ips ...netip.Addr) error {
	host := j.hostLink.Attrs().Index
	for _, ip := range ips {
		route := &netlink.Route{LinkIndex: host, Dst: hostPrefix(ip), Scope: netlink.SCOPE_LINK}
		if err := addRoute(b.node, b.nodeNetns, route); err != nil {
			return err
		}
		if err := addNeighbour(b.node, b.nodeNetns, host, ip, j.podLink.Attrs().HardwareAddr); err != nil {
			return err
		}
	}
	return nil
}

func setUp(h *netlink.Handle, nsName, linkName string) error {
	link, err := h.LinkByName(linkName)
	if err == nil {
		err = h.LinkSetUp(link)
	}
	if err != nil {
		return fmt.Errorf("set link %s up in netns %s: %w", linkName, nsName, err)
	}
	return nil
}

// addAddr adds ip as a host address; an IPv6 one skips duplicate address
// detection, so it is usable at once.
func addAddr(h *netlink.Handle, nsName string, link netlink.Link, ip netip.Addr) error {
	addr := &netlink.Addr{IPNet: hostPrefix(ip)}
	if ip.Is6() {
		addr.Flags = unix.IFA_F_NODAD
	}
	if err := h.AddrAdd(link, addr); err != nil {
		return fmt.Errorf("add address %s to %s in netns %s: %w", ip, link.Attrs().Name, nsName, err)
	}
	return nil
}

func addRoute(h *netlink.Handle, nsName string, r *netlink.Route) error {
	if err := h.RouteAdd(r); err != nil {
		return fmt.Errorf("add route %s in netns %s: %w", r, nsName, err)
	}
	return nil
}

func addNeighbour(h *netlink.Handle, nsName string, linkIndex int, ip netip.Addr, mac net.HardwareAddr) error {
	neigh := &netlink.Neigh{
		LinkIndex:    linkIndex,
		Family:       familyOf(ip),
		State:        netlink.NUD_PERMANENT,
		IP:           ip.AsSlice(),
		HardwareAddr: mac,
	}
	if err := h.NeighSet(neigh); err != nil {
		return fmt.Errorf("add neighbour %s lladdr %s in netns %s: %w", ip, mac, nsName, err)
	}
	return nil
}

// familyOf is ip's address family as netlink numbers it.
func familyOf(ip netip.Addr) int {
	if ip.Is6() && !ip.Is4In6() {
		return unix.AF_INET6
	}
	return unix.AF_INET
}

// hostPrefix is ip/32 (ip/128) as the net.IPNet netlink wants.
func hostPrefix(ip netip.Addr) *net.IPNet {
	return prefixNet(netip.PrefixFrom(ip, ip.BitLen()))
}

func prefixNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}
