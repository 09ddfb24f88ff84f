package dataplane

// LookupKind says how a dataplane finds the service of a new connection: what
// the cost model (sim/cost) scales its lookup cost with.
type LookupKind string

// The kinds of service lookup.
const (
	// LinearWalk is iptables: the first packet is matched against the
	// KUBE-SERVICES rules one by one until its service's rule.
	LinearWalk LookupKind = "linear-walk"
	// MapLookup is nftables (one verdict-map lookup) and IPVS (one hash
	// lookup): constant in the number of services.
	MapLookup LookupKind = "map-lookup"
	// NotModelled is a dataplane the cost model does not calibrate or
	// predict; Info.LookupNote says why.
	NotModelled LookupKind = "not-modelled"
)

// Modelled returns the dataplanes the cost model calibrates, in the order
// of All.
func Modelled() []Info {
	var out []Info
	for _, d := range all {
		if d.Lookup != NotModelled {
			out = append(out, d)
		}
	}
	return out
}
