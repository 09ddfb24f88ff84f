package objects

import (
	"net/netip"
	"strings"

	netutils "k8s.io/utils/net"
)

// parseIP parses an address as kube-proxy does (netutils.ParseIPSloppy:
// leading zeros in IPv4 octets are decimal, "172.30.0.041" is
// 172.30.0.41), and returns it normalised (IPv4-mapped IPv6 as IPv4).
func parseIP(s string) (netip.Addr, bool) {
	ip := netutils.ParseIPSloppy(s)
	if ip == nil {
		return netip.Addr{}, false
	}
	a, ok := netip.AddrFromSlice(ip)
	return a.Unmap(), ok
}

// parseCIDR parses a CIDR as kube-proxy does (trimmed, ParseCIDRSloppy)
// and returns it masked, as kube-proxy's net.IPNet is.
func parseCIDR(s string) (netip.Prefix, bool) {
	_, n, err := netutils.ParseCIDRSloppy(strings.TrimSpace(s))
	if err != nil {
		return netip.Prefix{}, false
	}
	a, ok := netip.AddrFromSlice(n.IP)
	if !ok {
		return netip.Prefix{}, false
	}
	ones, bits := n.Mask.Size()
	if a.Is4In6() || (a.Is4() && bits == 128) {
		a = a.Unmap()
		ones -= 96
	}
	return netip.PrefixFrom(a, ones).Masked(), true
}
