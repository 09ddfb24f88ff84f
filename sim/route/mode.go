package route

import (
	"fmt"

	"github.com/svclab/svclab/sim/dataplane"
)

// Mode is a kube-proxy mode whose rules answer the queries (sim/dataplane's).
type Mode = dataplane.Mode

// The kube-proxy modes, as sim/dataplane names them.
const (
	IPTables = dataplane.ModeIPTables
	NFTables = dataplane.ModeNFTables
	IPVS     = dataplane.ModeIPVS
)

// Modes lists every mode.
func Modes() []Mode { return dataplane.Modes() }

// ModeOf returns the mode whose rules answer for the dataplane called
// name: the mode it loads, or for a kube-proxy replacement the one it owes
// (dataplane.Info.RoutingMode).
func ModeOf(name string) (Mode, error) {
	d, ok := dataplane.Lookup(name)
	if !ok || d.RoutingMode() == dataplane.ModeNone {
		return "", fmt.Errorf("route: dataplane %q has no kube-proxy mode (known: %v)", name, dataplane.Names())
	}
	return d.RoutingMode(), nil
}
