package model

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// kpEndpoint is one row endpoint of kube-proxy's TestCategorizeEndpoints:
// "IP:80", its conditions, whether it is on this node, and its hints.
type kpEndpoint struct {
	addr                        string
	ready, serving, terminating bool
	local                       bool
	zones, nodes                []string
}

// portEndpoints builds the rows' endpoints; a local one runs on node.
func portEndpoints(node string, in []kpEndpoint) []PortEndpoint {
	out := make([]PortEndpoint, len(in))
	for i, e := range in {
		ip := strings.TrimSuffix(e.addr, ":80")
		ep := Endpoint{IP: netip.MustParseAddr(ip), Ready: e.ready, Serving: e.serving, Terminating: e.terminating, ZoneHints: e.zones, NodeHints: e.nodes, Node: "elsewhere"}
		if e.local {
			ep.Node = node
		}
		out[i] = PortEndpoint{Endpoint: ep, Port: 80, Addr: e.addr}
	}
	return out
}

// TestCategorizeEndpoints ports the cases of kube-proxy's
// TestCategorizeEndpoints (pkg/proxy/topology_test.go, k8s.io/kubernetes
// v1.37.2; v1.35.4 has the same cases but the last), as the oracle. Its
// serviceInfo (internalPolicyLocal, externalPolicyLocal, nodePort) becomes
// UsesEndpoints' three flags; isLocal becomes Node == the row's node
// (kube-proxy's rows leave nodeName empty where no node hint needs one).
// Its case "PreferSameNode falls back to same-zone when feature gate
// disabled" is left out: the gate is locked on since v1.35. cluster and
// local nil mean the policy is unused, as in kube-proxy's rows; all nil
// means it is whichever of the two is set.
func TestCategorizeEndpoints(t *testing.T) {
	zoneA := []string{"zone-a"}
	someLocal := []kpEndpoint{{addr: "10.0.0.0:80", ready: true, local: true}, {addr: "10.0.0.1:80", ready: true}}
	both := []string{"10.0.0.0:80", "10.0.0.1:80"}
	tests := []struct {
		name                         string
		node, zone                   string
		internalLocal, externalLocal bool
		nodePort                     bool
		eps                          []kpEndpoint
		cluster, local, all          []string
		onlyRemote                   bool
	}{{
		name:    "should use topology since all endpoints have hints, node has a zone label and and there are endpoints for the node's zone",
		zone:    "zone-a",
		eps:     zoneRows(0),
		cluster: []string{"10.1.2.3:80", "10.1.2.6:80"},
	}, {
		name: "externalTrafficPolicy: Local, topology ignored for Local endpoints",
		zone: "zone-a", externalLocal: true, nodePort: true,
		eps:     zoneRows(2),
		cluster: []string{"10.1.2.3:80", "10.1.2.6:80"},
		local:   []string{"10.1.2.3:80", "10.1.2.4:80"},
		all:     []string{"10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80"},
	}, {
		name: "internalTrafficPolicy: Local, topology ignored for Local endpoints",
		zone: "zone-a", internalLocal: true, nodePort: true,
		eps:     zoneRows(2),
		cluster: []string{"10.1.2.3:80", "10.1.2.6:80"},
		local:   []string{"10.1.2.3:80", "10.1.2.4:80"},
		all:     []string{"10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80"},
	}, {
		name:    "empty node labels",
		eps:     []kpEndpoint{{addr: "10.1.2.3:80", zones: zoneA, ready: true}},
		cluster: []string{"10.1.2.3:80"},
	}, {
		name:    "empty zone label",
		zone:    "",
		eps:     []kpEndpoint{{addr: "10.1.2.3:80", zones: zoneA, ready: true}},
		cluster: []string{"10.1.2.3:80"},
	}, {
		name:    "node in different zone, no endpoint filtering",
		zone:    "zone-b",
		eps:     []kpEndpoint{{addr: "10.1.2.3:80", zones: zoneA, ready: true}},
		cluster: []string{"10.1.2.3:80"},
	}, {
		name: "unready endpoint",
		zone: "zone-a",
		eps: []kpEndpoint{
			{addr: "10.1.2.3:80", zones: zoneA, ready: true},
			{addr: "10.1.2.4:80", zones: []string{"zone-b"}, ready: true},
			{addr: "10.1.2.5:80", zones: []string{"zone-c"}, ready: true},
			{addr: "10.1.2.6:80", zones: zoneA, ready: false},
		},
		cluster: []string{"10.1.2.3:80"},
	}, {
		name: "only unready endpoints in same zone (should not filter)",
		zone: "zone-a",
		eps: []kpEndpoint{
			{addr: "10.1.2.3:80", zones: zoneA, ready: false},
			{addr: "10.1.2.4:80", zones: []string{"zone-b"}, ready: true},
			{addr: "10.1.2.5:80", zones: []string{"zone-c"}, ready: true},
			{addr: "10.1.2.6:80", zones: zoneA, ready: false},
		},
		cluster: []string{"10.1.2.4:80", "10.1.2.5:80"},
	}, {
		name: "missing hints, no filtering applied",
		zone: "zone-a",
		eps: []kpEndpoint{
			{addr: "10.1.2.3:80", zones: zoneA, ready: true},
			{addr: "10.1.2.4:80", zones: []string{"zone-b"}, ready: true},
			{addr: "10.1.2.5:80", ready: true},
			{addr: "10.1.2.6:80", zones: zoneA, ready: true},
		},
		cluster: []string{"10.1.2.3:80", "10.1.2.4:80", "10.1.2.5:80", "10.1.2.6:80"},
	}, {
		name: "multiple hints per endpoint, filtering includes any endpoint with zone included",
		zone: "zone-c",
		eps: []kpEndpoint{
			{addr: "10.1.2.3:80", zones: []string{"zone-a", "zone-b", "zone-c"}, ready: true},
			{addr: "10.1.2.4:80", zones: []string{"zone-b", "zone-c"}, ready: true},
			{addr: "10.1.2.5:80", zones: []string{"zone-b", "zone-d"}, ready: true},
			{addr: "10.1.2.6:80", zones: []string{"zone-c"}, ready: true},
		},
		cluster: []string{"10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80"},
	}, {
		name: "PreferSameNode available",
		node: "node-1", zone: "zone-a",
		eps:     sameNodeRows(),
		cluster: []string{"10.1.2.3:80"},
	}, {
		name: "PreferSameNode ignored if some endpoints unhinted",
		node: "node-1", zone: "zone-a",
		eps: []kpEndpoint{
			{addr: "10.1.2.3:80", zones: zoneA, nodes: []string{"node-1"}, ready: true},
			{addr: "10.1.2.4:80", ready: true},
			{addr: "10.1.2.5:80", zones: []string{"zone-c"}, nodes: []string{"node-3"}, ready: true},
			{addr: "10.1.2.6:80", zones: zoneA, nodes: []string{"node-4"}, ready: true},
		},
		cluster: []string{"10.1.2.3:80", "10.1.2.4:80", "10.1.2.5:80", "10.1.2.6:80"},
	}, {
		name: "PreferSameNode falls back to PreferSameZone if no endpoint for node",
		node: "node-0", zone: "zone-a",
		eps:     sameNodeRows(),
		cluster: []string{"10.1.2.3:80", "10.1.2.6:80"},
	}, {
		name: "conflicting topology and localness require merging allEndpoints",
		zone: "zone-a", externalLocal: true, nodePort: true,
		eps: []kpEndpoint{
			{addr: "10.0.0.0:80", zones: zoneA, ready: true, local: true},
			{addr: "10.0.0.1:80", zones: []string{"zone-b"}, ready: true, local: true},
			{addr: "10.0.0.2:80", zones: zoneA, ready: true},
			{addr: "10.0.0.3:80", zones: []string{"zone-b"}, ready: true},
		},
		cluster: []string{"10.0.0.0:80", "10.0.0.2:80"},
		local:   []string{"10.0.0.0:80", "10.0.0.1:80"},
		all:     []string{"10.0.0.0:80", "10.0.0.1:80", "10.0.0.2:80"},
	}, {
		name:          "internalTrafficPolicy: Local, with empty endpoints",
		internalLocal: true,
		local:         []string{},
	}, {
		name:          "internalTrafficPolicy: Local, but all endpoints are remote",
		internalLocal: true,
		eps:           []kpEndpoint{{addr: "10.0.0.0:80", ready: true}, {addr: "10.0.0.1:80", ready: true}},
		local:         []string{},
		onlyRemote:    true,
	}, {
		name:          "internalTrafficPolicy: Local, all endpoints are local",
		internalLocal: true,
		eps:           []kpEndpoint{{addr: "10.0.0.0:80", ready: true, local: true}, {addr: "10.0.0.1:80", ready: true, local: true}},
		local:         []string{"10.0.0.0:80", "10.0.0.1:80"},
	}, {
		name:          "internalTrafficPolicy: Local, some endpoints are local",
		internalLocal: true,
		eps:           []kpEndpoint{{addr: "10.0.0.0:80", ready: true, local: true}, {addr: "10.0.0.1:80", ready: true}},
		local:         []string{"10.0.0.0:80"},
	}, {
		name:    "Cluster traffic policy, endpoints not Ready",
		eps:     []kpEndpoint{{addr: "10.0.0.0:80"}, {addr: "10.0.0.1:80"}},
		cluster: []string{},
	}, {
		name:    "Cluster traffic policy, some endpoints are Ready",
		eps:     []kpEndpoint{{addr: "10.0.0.0:80"}, {addr: "10.0.0.1:80", ready: true}},
		cluster: []string{"10.0.0.1:80"},
	}, {
		name: "Cluster traffic policy, all endpoints are terminating",
		eps: []kpEndpoint{
			{addr: "10.0.0.0:80", serving: true, terminating: true, local: true},
			{addr: "10.0.0.1:80", serving: true, terminating: true},
		},
		cluster: []string{"10.0.0.0:80", "10.0.0.1:80"},
	}, {
		name:          "iTP: Local, eTP: Cluster, some endpoints local",
		internalLocal: true, nodePort: true,
		eps:     someLocal,
		cluster: both,
		local:   []string{"10.0.0.0:80"},
		all:     both,
	}, {
		name:          "iTP: Cluster, eTP: Local, some endpoints local",
		externalLocal: true, nodePort: true,
		eps:     someLocal,
		cluster: both,
		local:   []string{"10.0.0.0:80"},
		all:     both,
	}, {
		name:          "iTP: Local, eTP: Local, some endpoints local",
		internalLocal: true, externalLocal: true, nodePort: true,
		eps:     someLocal,
		cluster: both,
		local:   []string{"10.0.0.0:80"},
		all:     both,
	}, {
		name:          "iTP: Local, eTP: Local, all endpoints remote",
		internalLocal: true, externalLocal: true, nodePort: true,
		eps:     []kpEndpoint{{addr: "10.0.0.0:80", ready: true}, {addr: "10.0.0.1:80", ready: true}},
		cluster: []string{"10.0.0.0:80", "10.0.0.1:80"},
		local:   []string{},
		all:     []string{"10.0.0.0:80", "10.0.0.1:80"},
	}, {
		name:          "iTP: Local, eTP: Local, all endpoints remote and terminating",
		internalLocal: true, externalLocal: true, nodePort: true,
		eps: []kpEndpoint{
			{addr: "10.0.0.0:80", serving: true, terminating: true},
			{addr: "10.0.0.1:80", serving: true, terminating: true},
		},
		cluster:    []string{"10.0.0.0:80", "10.0.0.1:80"},
		local:      []string{},
		all:        []string{"10.0.0.0:80", "10.0.0.1:80"},
		onlyRemote: true,
	}, {
		name:          "iTP: Cluster, eTP: Local, with terminating endpoints",
		externalLocal: true, nodePort: true,
		eps: []kpEndpoint{
			{addr: "10.0.0.0:80", ready: true},
			{addr: "10.0.0.1:80", local: true},
			{addr: "10.0.0.2:80", serving: true, terminating: true, local: true},
			{addr: "10.0.0.3:80", serving: true, terminating: true},
		},
		cluster: []string{"10.0.0.0:80"},
		local:   []string{"10.0.0.2:80"},
		all:     []string{"10.0.0.0:80", "10.0.0.2:80"},
	}, {
		name:          "externalTrafficPolicy ignored if not externally accessible",
		externalLocal: true,
		eps:           []kpEndpoint{{addr: "10.0.0.0:80", ready: true}, {addr: "10.0.0.1:80", ready: true, local: true}},
		cluster:       []string{"10.0.0.0:80", "10.0.0.1:80"},
		all:           []string{"10.0.0.0:80", "10.0.0.1:80"},
	}, {
		name:          "no cluster endpoints for iTP:Local internal-only service",
		internalLocal: true,
		eps:           []kpEndpoint{{addr: "10.0.0.0:80", ready: true}, {addr: "10.0.0.1:80", ready: true, local: true}},
		local:         []string{"10.0.0.1:80"},
		all:           []string{"10.0.0.1:80"},
	}, {
		name: "empty endpoints when no service endpoints exist",
	}, {
		name:    "single endpoint not ready, not serving, not terminating",
		zone:    "zone-a",
		eps:     []kpEndpoint{{addr: "10.0.0.0:80"}},
		cluster: []string{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := tt.node
			if node == "" {
				node = "this-node"
			}
			eps := portEndpoints(node, tt.eps)
			usesCluster, usesLocal := UsesEndpoints(tt.internalLocal, tt.externalLocal, tt.nodePort)
			c := CategorizeEndpoints(eps, usesCluster, usesLocal, node, tt.zone)
			check(t, "cluster", eps, c.Cluster, tt.cluster)
			check(t, "local", eps, c.Local, tt.local)
			all := tt.all
			switch {
			case len(tt.cluster) != 0 && len(tt.local) == 0:
				all = tt.cluster
			case len(tt.local) != 0 && len(tt.cluster) == 0:
				all = tt.local
			}
			check(t, "reachable", eps, c.Reachable, all)
			if want := len(all) > 0 || tt.onlyRemote; c.HasAny != want {
				t.Errorf("HasAny = %v, want %v", c.HasAny, want)
			}
		})
	}
}

// zoneRows are the four ready endpoints of kube-proxy's zone rows (hinted
// zone-a, zone-b, zone-c, zone-a), the first local of them on this node.
func zoneRows(local int) []kpEndpoint {
	out := make([]kpEndpoint, 4)
	for i, z := range []string{"zone-a", "zone-b", "zone-c", "zone-a"} {
		out[i] = kpEndpoint{addr: fmt.Sprintf("10.1.2.%d:80", i+3), zones: []string{z}, ready: true, local: i < local}
	}
	return out
}

// sameNodeRows are the four endpoints of kube-proxy's PreferSameNode rows.
func sameNodeRows() []kpEndpoint {
	out := make([]kpEndpoint, 4)
	for i, z := range []string{"zone-a", "zone-b", "zone-c", "zone-a"} {
		out[i] = kpEndpoint{addr: fmt.Sprintf("10.1.2.%d:80", i+3), zones: []string{z}, nodes: []string{fmt.Sprintf("node-%d", i+1)}, ready: true}
	}
	return out
}

// check compares got (indexes of eps, ascending) with want as
// kube-proxy's checkExpectedEndpoints does, and also what it does not
// (the order, and nil for an unused policy where kube-proxy's rows say
// nil but its check accepts an empty list).
func check(t *testing.T, what string, eps []PortEndpoint, got []int, want []string) {
	t.Helper()
	if !slices.IsSorted(got) {
		t.Errorf("%s = %v, not ascending", what, got)
	}
	if addrs := EndpointAddrs(eps, got); !slices.Equal(addrs, want) || len(want) == 0 && len(got) != 0 {
		t.Errorf("%s = %q, want %q", what, addrs, want)
	}
	if want == nil && got != nil && what != "reachable" {
		t.Errorf("%s = %v, want nil (the policy is unused)", what, got)
	}
}
