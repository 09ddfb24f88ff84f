package topo

import (
	"fmt"
	"net/netip"

	"github.com/vishvananda/netlink"
	vnetns "github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/svclab/svclab/lab/netns"
)

// builder holds what every Build step needs: the spec, the teardown stack
// and a netlink handle bound to the node namespace.
type builder struct {
	spec      Spec
	teardown  *Teardown
	nodeNetns string
	nodeNs    vnetns.NsHandle
	node      *netlink.Handle
}

// openNode creates the node namespace (forwarding on, loopback up, owning
// GatewayIP) and returns a builder bound to it. The caller closes it.
func openNode(spec Spec, name string, td *Teardown) (*builder, error) {
	if err := createRegistered(td, name); err != nil {
		return nil, err
	}
	settings := nodeSysctls
	if spec.ClientOnNode {
		settings = append(append([]sysctl{}, nodeSysctls...), clientSysctls...)
	}
	if err := writeSysctls(name, settings); err != nil {
		return nil, err
	}
	ns, err := netns.Open(name)
	if err != nil {
		return nil, err
	}
	node, err := netlink.NewHandleAt(ns)
	if err != nil {
		ns.Close()
		return nil, fmt.Errorf("netlink handle for netns %s: %w", name, err)
	}
	b := &builder{spec: spec, teardown: td, nodeNetns: name, nodeNs: ns, node: node}
	addrs := validAddrs(spec.NodeIP, spec.NodeIPv6)
	if spec.ClientOnNode {
		addrs = append(addrs, validAddrs(spec.ClientIP, spec.ClientIPv6)...)
	}
	if err := b.setUpLoopback(addrs...); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// close releases the builder's handles; the namespaces stay.
func (b *builder) close() {
	b.node.Close()
	b.nodeNs.Close()
}

// setUpLoopback brings the node's lo up with GatewayIP on it, so the node
// answers ARP for the gateway and has a source for ICMP errors, and with
// addrs: the node's own addresses, and with a client on the node, the
// client's. GatewayIP has link scope, so masquerading never picks it as a
// source: it picks the node's address.
func (b *builder) setUpLoopback(addrs ...netip.Addr) error {
	lo, err := b.node.LinkByName("lo")
	if err != nil {
		return fmt.Errorf("find lo in netns %s: %w", b.nodeNetns, err)
	}
	if err := b.node.LinkSetUp(lo); err != nil {
		return fmt.Errorf("set lo up in netns %s: %w", b.nodeNetns, err)
	}
	gw := &netlink.Addr{IPNet: hostPrefix(GatewayIP), Scope: int(netlink.SCOPE_LINK)}
	if err := b.node.AddrAdd(lo, gw); err != nil {
		return fmt.Errorf("add address %s to lo in netns %s: %w", GatewayIP, b.nodeNetns, err)
	}
	for _, ip := range addrs {
		if err := addAddr(b.node, b.nodeNetns, lo, ip); err != nil {
			return err
		}
	}
	return nil
}

// buildClient makes the client pod, or with ClientOnNode gives the node a
// route to the service ranges: a dummy link, like a cluster node's uplink,
// so a ClusterIP resolves before the OUTPUT chain DNATs it, and anything
// left un-DNATed is dropped inside the lab.
func (b *builder) buildClient(t *Topology) error {
	if b.spec.ClientOnNode {
		t.ClientNetns = b.nodeNetns
		return b.addServiceUplink()
	}
	t.ClientNetns, t.ClientVeth = clientNetnsName(b.spec.Prefix), clientVethName(b.spec.Prefix)
	ips := validAddrs(b.spec.ClientIP, b.spec.ClientIPv6)
	j, err := b.attach(attachment{netns: t.ClientNetns, hostVeth: t.ClientVeth, ips: ips, sysctls: clientSysctls})
	if err != nil {
		return err
	}
	defer j.close()
	return b.routeToPod(j, ips...)
}

// buildPod makes the index-th backend pod on the node of b.
func (b *builder) buildPod(pod Pod, index int) (PodNetns, error) {
	p := PodNetns{
		Name:         pod.Name,
		Netns:        podNetnsName(b.spec.Prefix, pod, index),
		IP:           pod.IP,
		IPv6:         pod.IPv6,
		HostVeth:     podVethName(b.spec.Prefix, index),
		OnSecondNode: pod.OnSecondNode,
	}
	j, err := b.attach(attachment{netns: p.Netns, hostVeth: p.HostVeth, ips: pod.Addrs()})
	if err != nil {
		return PodNetns{}, err
	}
	defer j.close()
	return p, b.routeToPod(j, pod.Addrs()...)
}

// addServiceUplink gives the node a route to the service ranges, like a
// cluster node's uplink, so a ClusterIP resolves before the OUTPUT chain
// DNATs it. The uplink is a veth looped back into the node itself; a rule
// makes everything that comes back in at the far end unreachable, so a
// packet left un-DNATed is answered at once with ICMP net unreachable and
// can neither escape nor loop.
func (b *builder) addServiceUplink() error {
	near, far, err := b.createUplink()
	if err != nil {
		return err
	}
	rule := netlink.NewRule()
	rule.Family, rule.Priority, rule.IifName, rule.Type = unix.AF_INET, uplinkRulePriority, far.Attrs().Name, unix.RTN_UNREACHABLE
	if err := b.node.RuleAdd(rule); err != nil {
		return fmt.Errorf("add rule %s in netns %s: %w", rule, b.nodeNetns, err)
	}
	index := near.Attrs().Index
	if err := addNeighbour(b.node, b.nodeNetns, index, uplinkNextHop, far.Attrs().HardwareAddr); err != nil {
		return err
	}
	for _, cidr := range b.spec.ServiceCIDRs {
		route := &netlink.Route{
			LinkIndex: index, Dst: prefixNet(cidr), Gw: uplinkNextHop.AsSlice(),
			Flags: int(netlink.FLAG_ONLINK), Src: b.spec.ClientIP.AsSlice(),
		}
		if err := addRoute(b.node, b.nodeNetns, route); err != nil {
			return err
		}
	}
	return nil
}

// createUplink makes the looped veth, both ends up; the far end accepts
// packets whose source is the node's own ClientIP.
func (b *builder) createUplink() (near, far netlink.Link, err error) {
	nearName, farName := serviceLinkName(b.spec.Prefix), serviceFarLinkName(b.spec.Prefix)
	if err := b.node.LinkAdd(&netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: nearName}, PeerName: farName}); err != nil {
		return nil, nil, fmt.Errorf("add veth %s (peer %s) in netns %s: %w", nearName, farName, b.nodeNetns, err)
	}
	if err := writeSysctls(b.nodeNetns, []sysctl{{"net.ipv4.conf." + farName + ".accept_local", "1"}}); err != nil {
		return nil, nil, err
	}
	for _, name := range []string{nearName, farName} {
		if err := setUp(b.node, b.nodeNetns, name); err != nil {
			return nil, nil, err
		}
	}
	if near, err = b.node.LinkByName(nearName); err != nil {
		return nil, nil, fmt.Errorf("find veth %s in netns %s: %w", nearName, b.nodeNetns, err)
	}
	if far, err = b.node.LinkByName(farName); err != nil {
		return nil, nil, fmt.Errorf("find veth %s in netns %s: %w", farName, b.nodeNetns, err)
	}
	return near, far, nil
}
