package nftables

import (
	"net/netip"
	"slices"

	"github.com/svclab/svclab/sim/model"
)

// unchanged reports whether kube-proxy's proxier of family f sees no
// update between a and b (one service's projections before and after a
// change), so that a partial sync skips it (skipServiceUpdate): its
// service ports' info is the same (ServiceChangeTracker compares
// BaseServicePortInfo), and so is its EndpointSlice of the family
// (EndpointSliceCache compares the slice objects, as sim/kube writes
// them).
func unchanged(a, b *model.Service, f model.Family) bool {
	return samePortInfo(a, b) && sameSlice(a, b, f)
}

// samePortInfo compares what kube-proxy keeps of a service per port.
func samePortInfo(a, b *model.Service) bool {
	if a.Skipped() || b.Skipped() {
		return a.Skipped() == b.Skipped()
	}
	if a.ClusterIP != b.ClusterIP || len(a.Ports) != len(b.Ports) {
		return false
	}
	for i := range a.Ports {
		pa, pb := a.Ports[i], b.Ports[i]
		if pa.Name != pb.Name || pa.Protocol != pb.Protocol || pa.Port != pb.Port || nodePortOf(a, pa) != nodePortOf(b, pb) {
			return false
		}
	}
	return affinityOf(a) == affinityOf(b) &&
		slices.Equal(a.LoadBalancerIPs, b.LoadBalancerIPs) && slices.Equal(a.ExternalIPs, b.ExternalIPs) &&
		sameRanges(a.LoadBalancerSourceRanges, b.LoadBalancerSourceRanges) &&
		healthCheckOf(a) == healthCheckOf(b) &&
		externalLocalOf(a) == externalLocalOf(b) && a.InternalPolicyLocal == b.InternalPolicyLocal
}

// nodePortOf is the NodePort kube-proxy sees (sim/kube writes it for
// NodePort and LoadBalancer services only).
func nodePortOf(s *model.Service, p model.Port) int {
	if s.Type == model.NodePort || s.Type == model.LoadBalancer {
		return p.NodePort
	}
	return 0
}

// affinityOf is the session affinity timeout, 0 without ClientIP affinity.
func affinityOf(s *model.Service) int {
	if !s.Affinity.ClientIP && s.Affinity.Timeout <= 0 {
		return 0
	}
	if s.Affinity.Timeout <= 0 {
		return model.DefaultAffinityTimeout
	}
	return s.Affinity.Timeout
}

// externalLocalOf is apiservice.ExternalPolicyLocal. A projected
// ClusterIP service may have lost the external IPs of the other family
// that make it externally accessible, so its ExternalPolicyLocal is taken
// as it is (the API server accepts the policy only on externally
// accessible services).
func externalLocalOf(s *model.Service) bool {
	return s.ExternalPolicyLocal && s.Type != model.ExternalName
}

// healthCheckOf is the health check NodePort kube-proxy keeps
// (apiservice.NeedsHealthCheck: a LoadBalancer with Local policy).
func healthCheckOf(s *model.Service) int {
	if s.Type == model.LoadBalancer && externalLocalOf(s) {
		return s.HealthCheckNodePort
	}
	return 0
}

// sameRanges compares source ranges as kube-proxy parses them: masked,
// and a zero-length range turns the list into an empty one that differs
// from none.
func sameRanges(a, b []netip.Prefix) bool {
	na, za := normRanges(a)
	nb, zb := normRanges(b)
	return za == zb && slices.Equal(na, nb)
}

func normRanges(rs []netip.Prefix) (out []netip.Prefix, zero bool) {
	for _, r := range rs {
		if r.Bits() == 0 {
			return nil, true
		}
		out = append(out, r.Masked())
	}
	return out, false
}

// sameSlice compares the service's EndpointSlice of family f: its
// existence (the IPv4 slice always exists, the IPv6 one with an IPv6
// ClusterIP or endpoint), ports and endpoints.
func sameSlice(a, b *model.Service, f model.Family) bool {
	if f == model.IPv6 && sliceExists(a) != sliceExists(b) {
		return false
	}
	if len(a.Ports) != len(b.Ports) || len(a.Endpoints) != len(b.Endpoints) {
		return false
	}
	for i := range a.Ports {
		pa, pb := a.Ports[i], b.Ports[i]
		if pa.Name != pb.Name || pa.Protocol != pb.Protocol || pa.TargetPort != pb.TargetPort || pa.Unresolved != pb.Unresolved {
			return false
		}
	}
	for i := range a.Endpoints {
		if !sameEndpoint(&a.Endpoints[i], &b.Endpoints[i]) {
			return false
		}
	}
	return true
}

func sliceExists(s *model.Service) bool { return s.ClusterIP.IsValid() || len(s.Endpoints) > 0 }

// sameEndpoint compares two endpoints as slice entries (hints present or
// not, then their names).
func sameEndpoint(a, b *model.Endpoint) bool {
	hintsA, hintsB := a.ZoneHints != nil || a.NodeHints != nil, b.ZoneHints != nil || b.NodeHints != nil
	return a.IP == b.IP && a.Ready == b.Ready && a.Serving == b.Serving && a.Terminating == b.Terminating &&
		a.Node == b.Node && a.Zone == b.Zone && hintsA == hintsB &&
		slices.Equal(a.ZoneHints, b.ZoneHints) && slices.Equal(a.NodeHints, b.NodeHints)
}
