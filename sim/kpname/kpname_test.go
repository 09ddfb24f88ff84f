package kpname

import "testing"

// Expected names come from kube-proxy's own test expectations
// (pkg/proxy/iptables/proxier_test.go and pkg/proxy/nftables/proxier_test.go
// @531be81, quoted in docs/kube-proxy-rules.md).
func TestNamesMatchKubeProxy(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"svc chain ns1", ServiceChain("ns1/svc1:p80", "TCP"), "KUBE-SVC-XPGD46QRK7WJZT7O"},
		{"svc chain ns3", ServiceChain("ns3/svc3:p80", "tcp"), "KUBE-SVC-X27LE4BHSL4DOUIK"},
		{"svc chain ns4", ServiceChain("ns4/svc4:p80", "tcp"), "KUBE-SVC-4SW47YFZTEDKD3PK"},
		{"ext chain ns3", ExternalChain("ns3/svc3:p80", "tcp"), "KUBE-EXT-X27LE4BHSL4DOUIK"},
		{"sep ns1", EndpointChain("ns1/svc1:p80", "tcp", "10.180.0.1:80"), "KUBE-SEP-SXIVWICOYRO3J4NJ"},
		{"sep ns3 a", EndpointChain("ns3/svc3:p80", "tcp", "10.0.3.2:80"), "KUBE-SEP-DKCFIS26GWF2WLWC"},
		{"sep ns3 b", EndpointChain("ns3/svc3:p80", "tcp", "10.0.3.3:80"), "KUBE-SEP-JVVZVJ7BSEPPRNBS"},
		{"sep ns4 a", EndpointChain("ns4/svc4:p80", "tcp", "10.180.0.4:80"), "KUBE-SEP-UKSFD7AGPMPPLUHC"},
		{"sep ns4 b", EndpointChain("ns4/svc4:p80", "tcp", "10.180.0.5:80"), "KUBE-SEP-C6EBXVWJJZMIWKLZ"},
		{"nft service", NFTServiceChain("ns1", "svc1", "TCP", "p80"), "service-ULMVA6XW-ns1/svc1/tcp/p80"},
		{"nft endpoint", NFTEndpointChain("ns1", "svc1", "TCP", "p80", "10.180.0.1", "80"), "endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestHashAndTruncateLimitsLength(t *testing.T) {
	long := make([]byte, 400)
	for i := range long {
		long[i] = 'a'
	}
	got := NFTServiceChain("ns", string(long), "tcp", "p")
	if len(got) != len("service-")+nftNameBaseLengthMax || got[len(got)-3:] != "..." {
		t.Fatalf("truncated name has length %d, ends %q", len(got), got[len(got)-3:])
	}
}
