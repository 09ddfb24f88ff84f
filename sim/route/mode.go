package route

import (
	"fmt"

	"github.com/svclab/svclab/sim/dataplane"
)

// Mode is a kube-proxy mode whose rules answer the queries.
type Mode string

// The kube-proxy modes.
const (
	IPTables Mode = "iptables"
	NFTables Mode = "nftables"
	IPVS     Mode = "ipvs"
)

// Modes lists every mode.
func Modes() []Mode { return []Mode{IPTables, NFTables, IPVS} }

// modes maps each dataplane to the mode whose rules it is held to. Both
// iptables backends load the same payload. The eBPF dataplanes are
// kube-proxy replacements: they owe kube-proxy's semantics, and the lab
// held them to the rule chains' (not IPVS's per-virtual-server Local
// policies) before this package existed, so the iptables rules answer
// for them.
var modes = map[dataplane.Name]Mode{
	dataplane.IPTablesLegacy: IPTables,
	dataplane.IPTablesNFT:    IPTables,
	dataplane.NFTables:       NFTables,
	dataplane.IPVS:           IPVS,
	dataplane.EBPF:           IPTables,
	dataplane.EBPFSock:       IPTables,
}

// ModeOf returns the mode whose rules answer for the dataplane called
// name.
func ModeOf(name string) (Mode, error) {
	m, ok := modes[dataplane.Name(name)]
	if !ok {
		return "", fmt.Errorf("route: dataplane %q has no kube-proxy mode (known: %v)", name, dataplane.Names())
	}
	return m, nil
}
