package labtest

import (
	"net/netip"
	"testing"

	"github.com/svclab/svclab/lab/netns"
)

// VethPair is two scratch namespaces joined by a veth pair:
// Client (ClientIP/24) <-> Server (ServerIP/24).
type VethPair struct {
	Client, Server string
}

// Addresses of a VethPair's two ends.
var (
	ClientIP = netip.MustParseAddr("10.250.0.1")
	ServerIP = netip.MustParseAddr("10.250.0.2")
)

// NewVethPair builds the pair; the scratch namespaces (and with them the
// veth) are deleted when the test ends. Nothing touches the root namespace:
// the veth is created inside the client namespace.
func NewVethPair(t testing.TB) VethPair {
	t.Helper()
	RequireRoot(t)
	RequireBinary(t, "ip")
	p := VethPair{Client: ScratchNetns(t), Server: ScratchNetns(t)}
	IP(t, p.Client, "link", "add", "veth-c", "type", "veth", "peer", "name", "veth-s", "netns", p.Server)
	IP(t, p.Client, "addr", "add", ClientIP.String()+"/24", "dev", "veth-c")
	IP(t, p.Client, "link", "set", "veth-c", "up")
	IP(t, p.Server, "addr", "add", ServerIP.String()+"/24", "dev", "veth-s")
	IP(t, p.Server, "link", "set", "veth-s", "up")
	return p
}

// IP runs `ip ARGS...` inside namespace ns and fails the test on error.
func IP(t testing.TB, ns string, args ...string) {
	t.Helper()
	if _, err := netns.Output(ns, nil, append([]string{"ip"}, args...)...); err != nil {
		t.Fatal(err)
	}
}
