package apicheck

import "net/netip"

var broadcast = netip.AddrFrom4([4]byte{255, 255, 255, 255})

// BadAddress says why ip cannot be a clusterIP or an endpoint ("" when it
// can): the unspecified, loopback, multicast, link-local and broadcast
// addresses of either family.
func BadAddress(ip netip.Addr) string {
	switch ip = ip.Unmap(); {
	case ip.IsUnspecified():
		return "the unspecified address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsMulticast():
		return "a multicast address"
	case ip.IsLinkLocalUnicast():
		return "a link-local address"
	case ip == broadcast:
		return "the broadcast address"
	case !ip.IsGlobalUnicast():
		return "not a unicast address"
	}
	return ""
}
