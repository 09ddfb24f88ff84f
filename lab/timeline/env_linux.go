package timeline

import "net/netip"

// Env is the lab node a timeline runs on.
type Env struct {
	// NodeNetns is the node's namespace (rules, conntrack).
	NodeNetns string
	// ClientNetns is the client pod's; ExternalNetns and ExternalIP the
	// external client's ("" and zero when the lab has none).
	ClientNetns   string
	ExternalNetns string
	ExternalIP    netip.Addr
	// PodNetns names each pod's namespace by its address; PodIP each pod's
	// address by its name (what the pod servers answer).
	PodNetns map[netip.Addr]string
	PodIP    map[string]netip.Addr
}
