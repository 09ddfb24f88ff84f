package driver

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"net"
	"runtime/debug"

	"k8s.io/kubernetes/pkg/proxy/conntrack"
	"k8s.io/kubernetes/pkg/proxy/healthcheck"
	ipvsnetlinktest "k8s.io/kubernetes/pkg/proxy/ipvs/testing"
	proxyutiltest "k8s.io/kubernetes/pkg/proxy/util/testing"
	"sigs.k8s.io/knftables"

	"github.com/svclab/svclab/sim/kube"
)

// Version is the k8s.io/kubernetes version the driver was built with.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == "k8s.io/kubernetes" {
				return dep.Version
			}
		}
	}
	return kubeVersion
}

// rewire replaces, after construction, the members NewProxier wires to
// the host. Render mode swaps every host-bound member for kube-proxy's own
// fakes; sync mode only wraps the nftables interface to record each
// transaction.
func (d *Driver) rewire(s settings) error {
	p := d.proxier
	if !d.render {
		if d.mode != kube.ModeNFTables {
			return nil
		}
		inner, err := getField(p, "nftables")
		if err != nil {
			return err
		}
		nft, ok := inner.(knftables.Interface)
		if !ok {
			return fmt.Errorf("field nftables of %T is a %T, not a knftables.Interface", p, inner)
		}
		d.nft = &recNFT{Interface: nft}
		return setField(p, "nftables", knftables.Interface(d.nft))
	}
	fields := map[string]any{
		"conntrack":           conntrack.NewFake(),
		"serviceHealthServer": healthcheck.NewFakeServiceHealthServer(),
		"networkInterfacer":   fakeNetwork(s.nodeIP, s.family),
	}
	switch d.mode {
	case kube.ModeIPTables:
		fields["nfacct"] = nil
	case kube.ModeNFTables:
		var inner knftables.Interface = newLightNFT(nftFamily(s.family))
		if d.validating {
			inner = knftables.NewFake(nftFamily(s.family), "kube-proxy")
		}
		d.nft = &recNFT{Interface: inner}
		fields["nftables"] = knftables.Interface(d.nft)
	case kube.ModeIPVS:
		h := ipvsnetlinktest.NewFakeNetlinkHandle(s.family == v1.IPv6Protocol)
		if s.nodeIP != nil {
			if err := h.SetLocalAddresses("eth0", s.nodeIP.String()); err != nil {
				return fmt.Errorf("fake netlink handle: %w", err)
			}
		}
		fields["netlinkHandle"] = h
	}
	return setFields(p, fields)
}

// fakeNetwork is a node with lo (127.0.0.1/8, or ::1/128 for IPv6) and,
// if nodeIP is set, eth0 holding nodeIP/24 (/64 for IPv6).
func fakeNetwork(nodeIP net.IP, family v1.IPFamily) *proxyutiltest.FakeNetwork {
	n := proxyutiltest.NewFakeNetwork()
	lo, mask := &net.IPNet{IP: net.IPv4(127, 0, 0, 1), Mask: net.CIDRMask(8, 32)}, net.CIDRMask(24, 32)
	if family == v1.IPv6Protocol {
		lo, mask = &net.IPNet{IP: net.IPv6loopback, Mask: net.CIDRMask(128, 128)}, net.CIDRMask(64, 128)
	}
	n.AddInterfaceAddr(&net.Interface{Index: 1, Name: "lo", Flags: net.FlagUp | net.FlagLoopback}, []net.Addr{lo})
	if nodeIP != nil {
		n.AddInterfaceAddr(&net.Interface{Index: 2, Name: "eth0", Flags: net.FlagUp},
			[]net.Addr{&net.IPNet{IP: nodeIP, Mask: mask}})
	}
	return n
}

// nftFamily is the nftables table family of kube-proxy's proxier for f.
func nftFamily(f v1.IPFamily) knftables.Family {
	if f == v1.IPv6Protocol {
		return knftables.IPv6Family
	}
	return knftables.IPv4Family
}
