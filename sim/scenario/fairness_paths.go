package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/model"
)

// Origin is where a fairness run's connections start.
type Origin string

// The origins of fairness.from.
const (
	// FromPod is a client pod on the node (PREROUTING, pod source).
	FromPod Origin = "pod"
	// FromNode is the node itself (OUTPUT); clientOnNode: true says the same.
	FromNode Origin = "node"
	// FromExternal is the external client on the node's uplink, from an
	// address inside every loadBalancerSourceRanges of the services.
	FromExternal Origin = "external"
	// FromExternalOutsideRange is the external client from an address
	// outside every loadBalancerSourceRanges: a LoadBalancer IP refuses it.
	FromExternalOutsideRange Origin = "external-outside-range"
)

// External reports whether connections start at the external client.
func (o Origin) External() bool { return o == FromExternal || o == FromExternalOutsideRange }

// TargetKind is which of a service's addresses a fairness run connects to.
type TargetKind string

// The targets of fairness.target.
const (
	TargetClusterIP    TargetKind = "clusterIP"
	TargetNodePort     TargetKind = "nodePort"
	TargetExternalIP   TargetKind = "externalIP"
	TargetLoadBalancer TargetKind = "loadBalancer"
)

// FairnessPaths is where a fairness run's connections start, what they
// target and in which family.
type FairnessPaths struct {
	From   Origin
	Target TargetKind
	Family model.Family
}

var (
	origins     = []string{string(FromPod), string(FromNode), string(FromExternal), string(FromExternalOutsideRange)}
	targetKinds = []string{string(TargetClusterIP), string(TargetNodePort), string(TargetExternalIP), string(TargetLoadBalancer)}
	families    = []string{model.IPv4.String(), model.IPv6.String()}
)

// validateFairnessPaths checks fairness.from, .target and .family and
// fills their defaults.
func validateFairnessPaths(r *fairnessSpec, at func(string) func(string, string) pathError) []pathError {
	var errs []pathError
	if r.From == "" {
		r.From = string(FromPod)
		if r.ClientOnNode {
			r.From = string(FromNode)
		}
	}
	if r.Target == "" {
		r.Target = string(TargetClusterIP)
	}
	if r.Family == "" {
		r.Family = model.IPv4.String()
	}
	check := func(key, v string, allowed []string) {
		if !slices.Contains(allowed, v) {
			errs = append(errs, at(key)(fmt.Sprintf("unknown %s %q", key, v), "use "+strings.Join(allowed, ", ")))
		}
	}
	check("from", r.From, origins)
	check("target", r.Target, targetKinds)
	check("family", r.Family, families)
	if r.ClientOnNode && r.From != string(FromNode) {
		errs = append(errs, at("clientOnNode")(fmt.Sprintf("clientOnNode: true with from: %s", r.From), "drop clientOnNode, or use from: node"))
	}
	if r.From == string(FromNode) && r.Family == model.IPv6.String() {
		errs = append(errs, at("family")("from: node with family: IPv6", "the lab's node client is IPv4 only; use from: pod or external"))
	}
	return errs
}

// fairnessPathsOf is the typed form of a validated fairness section.
func fairnessPathsOf(r *fairnessSpec) FairnessPaths {
	p := FairnessPaths{From: Origin(r.From), Target: TargetKind(r.Target)}
	if r.Family == model.IPv6.String() {
		p.Family = model.IPv6
	}
	return p
}

// ClientOnNodeFor reports whether the fairness run's client is the node.
func (f *Fairness) ClientOnNodeFor() bool { return f.ClientOnNode || f.Paths.From == FromNode }
