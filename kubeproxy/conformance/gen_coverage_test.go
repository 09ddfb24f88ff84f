package conformance

import (
	"testing"

	"github.com/svclab/svclab/sim/model"
)

// TestGeneratorCoverage: the generated cases the suite runs (1,000 by
// default, SVCLAB_CONFORMANCE_CLUSTERS) cover every feature
// the suite claims to, each many times.
func TestGeneratorCoverage(t *testing.T) {
	seen := map[string]int{}
	n := clusters(t)
	for seed := range uint64(n) {
		tc := Generate(seed, AllFeatures)
		total := 0
		for _, s := range tc.Services {
			total += len(s.Endpoints) * len(s.Ports)
			countService(seen, &s)
		}
		switch {
		case total > 1000 && total <= 1100:
			seen["large, just above the threshold"]++
		case total >= 900 && total <= 1000:
			seen["large, at or just below the threshold"]++
		}
		for _, c := range tc.Changes {
			seen["change "+string(c.Kind)]++
		}
		countCluster(seen, tc)
	}
	for _, f := range []string{
		"ClusterIP", "NodePort", "ClientIP affinity", "TCP", "UDP", "SCTP", "several ports", "no endpoints",
		"20 endpoints", "ready", "not ready", "serving terminating", "terminating not serving", "local", "remote",
		"large, just above the threshold", "large, at or just below the threshold",
		"change add-service", "change remove-service", "change add-endpoint", "change remove-endpoint", "change replace-endpoint",
		"LoadBalancer", "ingress IPs", "pending load balancer", "LoadBalancer without node ports", "source ranges",
		"source range holding the node IP", "externalIPs", "externalTrafficPolicy Local", "healthCheckNodePort",
		"internalTrafficPolicy Local", "hinted endpoints", "node hints", "trafficDistribution", "headless", "ExternalName",
		"IPv6-only cluster", "dual-stack cluster", "dual-stack service", "IPv6-primary dual-stack service", "IPv6 endpoint",
		"masquerade-all", "nodeport-addresses CIDRs", "nodeport-addresses primary", "localhost NodePorts off", "node zone",
		"change update-service",
	} {
		if want := max(3, n/100); seen[f] < want {
			t.Errorf("%q in %d cases of %d, want at least %d", f, seen[f], n, want)
		}
		t.Logf("%-40s %d", f, seen[f])
	}
}

func countCluster(seen map[string]int, tc *Case) {
	switch {
	case len(tc.Families) == 2:
		seen["dual-stack cluster"]++
	case tc.Families[0] == model.IPv6:
		seen["IPv6-only cluster"]++
	}
	p := tc.Flags
	for name, on := range map[string]bool{
		"masquerade-all": p.MasqueradeAll, "nodeport-addresses CIDRs": len(p.NodePortAddresses) > 0,
		"nodeport-addresses primary": p.NodePortPrimary, "localhost NodePorts off": p.NoLocalhostNodePorts,
		"node zone": tc.Cluster.NodeZone != "",
	} {
		if on {
			seen[name]++
		}
	}
}

func countFeatures(seen map[string]int, s *model.Service) {
	nodePorts := false
	for _, p := range s.Ports {
		nodePorts = nodePorts || p.NodePort != 0
	}
	for name, on := range map[string]bool{
		"ingress IPs": len(s.LoadBalancerIPs) > 0, "pending load balancer": s.Type == model.LoadBalancer && len(s.LoadBalancerIPs) == 0,
		"LoadBalancer without node ports": s.Type == model.LoadBalancer && !nodePorts,
		"source ranges":                   len(s.LoadBalancerSourceRanges) > 0, "externalIPs": len(s.ExternalIPs) > 0,
		"externalTrafficPolicy Local": s.ExternalPolicyLocal, "healthCheckNodePort": s.HealthCheckNodePort != 0,
		"internalTrafficPolicy Local": s.InternalPolicyLocal, "trafficDistribution": s.TrafficDistribution != "",
		"headless":                        !s.ClusterIP.IsValid() && s.Type != model.ExternalName,
		"dual-stack service":              s.SecondaryClusterIP.IsValid(),
		"IPv6-primary dual-stack service": s.SecondaryClusterIP.IsValid() && s.ClusterIP.Is6(),
	} {
		if on {
			seen[name]++
		}
	}
	for _, r := range s.LoadBalancerSourceRanges {
		if r.Contains(nodeIP) || r.Contains(nodeIPv6) {
			seen["source range holding the node IP"]++
		}
	}
	for _, e := range s.Endpoints {
		if len(e.ZoneHints) > 0 {
			seen["hinted endpoints"]++
		}
		if len(e.NodeHints) > 0 {
			seen["node hints"]++
		}
		if e.IP.Is6() {
			seen["IPv6 endpoint"]++
		}
	}
}

func countService(seen map[string]int, s *model.Service) {
	countFeatures(seen, s)
	seen[string(s.Type)]++
	if s.Affinity.ClientIP {
		seen["ClientIP affinity"]++
	}
	if len(s.Ports) > 1 {
		seen["several ports"]++
	}
	for _, p := range s.Ports {
		seen[string(p.Protocol)]++
	}
	switch len(s.Endpoints) {
	case 0:
		seen["no endpoints"]++
	case 20:
		seen["20 endpoints"]++
	}
	for _, e := range s.Endpoints {
		switch {
		case e.Ready:
			seen["ready"]++
		case e.Serving && e.Terminating:
			seen["serving terminating"]++
		case e.Terminating:
			seen["terminating not serving"]++
		default:
			seen["not ready"]++
		}
		if e.Node == "node-1" {
			seen["local"]++
		} else {
			seen["remote"]++
		}
	}
}
