package cost

import (
	"fmt"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/scenario"
)

// Lookup says how a dataplane finds the service of a new connection
// (sim/dataplane's LookupKind, read from its registry).
type Lookup = dataplane.LookupKind

// The two kinds of service lookup the model calibrates.
const (
	// LinearWalk is iptables: the first packet is matched against the
	// KUBE-SERVICES rules one by one until its service's rule.
	LinearWalk = dataplane.LinearWalk
	// MapLookup is nftables (one verdict-map lookup) and IPVS (one hash
	// lookup): constant in the number of services.
	MapLookup = dataplane.MapLookup
)

// Target positions of a sweep (and of a Query).
const (
	PositionFirst   = "first"
	PositionMiddle  = "middle"
	PositionLast    = "last"
	PositionUniform = scenario.PositionUniform
)

// modelled returns the registry's entry of a dataplane the model
// calibrates: an unknown name, or one the registry marks NotModelled, is
// an error that says why.
func modelled(name string) (dataplane.Info, error) {
	info, ok := dataplane.Lookup(name)
	if !ok {
		return info, fmt.Errorf("dataplane %q: want one of %s", name, strings.Join(knownDataplanes(), ", "))
	}
	if info.Lookup == dataplane.NotModelled {
		return info, fmt.Errorf("dataplane %q is not in the cost model: %s", name, info.LookupNote)
	}
	return info, nil
}

// LookupOf returns the lookup kind of a dataplane.
func LookupOf(name string) (Lookup, error) {
	info, err := modelled(name)
	return info.Lookup, err
}

// ModeOf returns the kube-proxy mode whose payload a dataplane loads
// (iptables, nftables or ipvs).
func ModeOf(name string) (string, error) {
	info, err := modelled(name)
	return string(info.Mode), err
}

// knownDataplanes are the dataplanes the model calibrates.
func knownDataplanes() []string {
	var out []string
	for _, d := range dataplane.Modelled() {
		out = append(out, string(d.Name))
	}
	return out
}

// Evaluations returns what one first packet's service lookup does for a
// target at position among n services: the KUBE-SERVICES rules it walks
// (LinearWalk: 1 for first, n for last, (n+1)/2 for middle and the mean
// (n+1)/2 for uniform), or one lookup (MapLookup).
func Evaluations(lookup Lookup, position string, n int) (float64, error) {
	if lookup == MapLookup {
		return 1, nil
	}
	switch position {
	case PositionFirst:
		return 1, nil
	case PositionLast:
		return float64(n), nil
	case PositionUniform, PositionMiddle:
		return float64(n+1) / 2, nil
	}
	return 0, fmt.Errorf("position %q: want %s, %s, %s or %s", position, PositionUniform, PositionLast, PositionMiddle, PositionFirst)
}
