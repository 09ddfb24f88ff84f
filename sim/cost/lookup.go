package cost

import (
	"fmt"
	"strings"
)

// Lookup says how a dataplane finds the service of a new connection.
type Lookup string

// The two kinds of service lookup.
const (
	// LinearWalk is iptables: the first packet is matched against the
	// KUBE-SERVICES rules one by one until its service's rule.
	LinearWalk Lookup = "linear-walk"
	// MapLookup is nftables (one verdict-map lookup) and IPVS (one hash
	// lookup): constant in the number of services.
	MapLookup Lookup = "map-lookup"
)

// Target positions of a sweep (and of a Query).
const (
	PositionFirst   = "first"
	PositionMiddle  = "middle"
	PositionLast    = "last"
	PositionUniform = "uniform"
)

// dataplaneInfo is what the model knows about each dataplane by name.
var dataplaneInfo = map[string]struct {
	lookup Lookup
	mode   string // the kube-proxy mode whose payload it loads
}{
	"iptables-legacy": {LinearWalk, "iptables"},
	"iptables-nft":    {LinearWalk, "iptables"},
	"nftables":        {MapLookup, "nftables"},
	"ipvs":            {MapLookup, "ipvs"},
}

// LookupOf returns the lookup kind of a dataplane.
func LookupOf(dataplane string) (Lookup, error) {
	info, ok := dataplaneInfo[dataplane]
	if !ok {
		return "", fmt.Errorf("dataplane %q: want one of %s", dataplane, strings.Join(knownDataplanes(), ", "))
	}
	return info.lookup, nil
}

// ModeOf returns the kube-proxy mode whose payload a dataplane loads
// (iptables, nftables or ipvs).
func ModeOf(dataplane string) (string, error) {
	info, ok := dataplaneInfo[dataplane]
	if !ok {
		return "", fmt.Errorf("dataplane %q: want one of %s", dataplane, strings.Join(knownDataplanes(), ", "))
	}
	return info.mode, nil
}

func knownDataplanes() []string {
	return []string{"iptables-legacy", "iptables-nft", "nftables", "ipvs"}
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
