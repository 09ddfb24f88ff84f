package runner_test

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/scenario"
)

// TestNodePortFromOutsideOnFakes runs the embedded nodeport-external
// scenario on the simulated machine: the lab gets an external client and a
// second node, every endpoint (local and remote) takes a third, and each
// pod reports the node's address as the source it saw.
func TestNodePortFromOutsideOnFakes(t *testing.T) {
	sc, err := scenario.Load("nodeport-external")
	if err != nil {
		t.Fatal(err)
	}
	out, m, err := runOnFakes(t, t.Context(), sc)
	if err != nil {
		t.Fatal(err)
	}
	spec := m.Labs[0].Spec
	if len(spec.ExternalIPs) == 0 || !spec.SecondNode || spec.NodeIP != topo.DefaultNodeIP {
		t.Fatalf("lab spec: external %v, second node %v, node IP %s", spec.ExternalIPs, spec.SecondNode, spec.NodeIP)
	}
	runs := records(t, out.Dir)[results.TypeFairness]
	if len(runs) != 2 {
		t.Fatalf("%d fairness records, want 2", len(runs))
	}
	for _, r := range runs {
		f := r.Fairness
		if f.From != "external" || f.Target != "nodePort" || f.Family != "IPv4" || f.Address != "192.168.99.1:30080" || f.Source != "203.0.113.10" {
			t.Errorf("%s: path %s→%s %s, %s from %s", f.Dataplane, f.From, f.Target, f.Family, f.Address, f.Source)
		}
		if f.Errors != 0 || len(f.Endpoints) != 3 || f.ExpectDropped {
			t.Fatalf("%s: %d errors, %d endpoints, dropped %v", f.Dataplane, f.Errors, len(f.Endpoints), f.ExpectDropped)
		}
		for _, ep := range f.Endpoints {
			if ep.Count == 0 || len(ep.Sources) != 1 || ep.Sources["192.168.99.1"] != ep.Count {
				t.Errorf("%s %s: %d connections, sources %v; want all from the node's address", f.Dataplane, ep.Endpoint, ep.Count, ep.Sources)
			}
		}
	}
}

const pathsBase = `name: paths
cluster: {clusterCIDR: 10.244.0.0/16}
services:
  - namespace: demo
    name: web
    clusterIP: 10.96.0.80
    ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]
    endpoints: [10.244.0.11, 10.244.0.12]
fairness:
  dataplanes: [iptables-nft]
  connections: 400
`

func TestFairnessPathsOnFakes(t *testing.T) {
	tests := []struct {
		name, extra  string
		wantSource   string // what each pod saw ("" : no record)
		wantWarning  string
		wantExternal bool
	}{
		{"pod to ClusterIP keeps the pod's address", "", topo.DefaultClientIP.String(), "", false},
		{"external to ClusterIP is masqueraded", "  from: external\n", "192.168.99.1", "", true},
		{"a ClusterIP service has no nodePort", "  target: nodePort\n", "", "no address of the target kind nodePort", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Parse("paths.yaml", []byte(pathsBase+tc.extra))
			if err != nil {
				t.Fatal(err)
			}
			out, m, err := runOnFakes(t, t.Context(), sc)
			if tc.wantWarning != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantWarning) {
					t.Fatalf("err = %v, want the warning %q", err, tc.wantWarning)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(m.Labs[0].Spec.ExternalIPs) > 0; got != tc.wantExternal {
				t.Errorf("external client built: %v, want %v", got, tc.wantExternal)
			}
			for _, r := range records(t, out.Dir)[results.TypeFairness] {
				for _, ep := range r.Fairness.Endpoints {
					if ep.Sources[tc.wantSource] != ep.Count || ep.Count == 0 {
						t.Errorf("%s: sources %v of %d, want all from %s", ep.Endpoint, ep.Sources, ep.Count, tc.wantSource)
					}
				}
			}
		})
	}
}

// TestIPVSRoutesLocalPolicyWithoutLocalEndpointToCluster runs the embedded
// etp-local-vs-cluster scenario through nftables and IPVS on the simulated
// machine, whose fake IPVS kernel takes its real servers from the rendered
// ipvsadm table: under externalTrafficPolicy Local with no local endpoint
// the rule chains drop, while IPVS sends the connections to the cluster's
// endpoints with the client's address kept (kubernetes#97081); with a
// local endpoint both send everything to it.
func TestIPVSRoutesLocalPolicyWithoutLocalEndpointToCluster(t *testing.T) {
	sc, err := scenario.Load("etp-local-vs-cluster")
	if err != nil {
		t.Fatal(err)
	}
	sc.Fairness.Dataplanes = []string{"nftables", "ipvs"}
	out, _, err := runOnFakes(t, t.Context(), sc)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		dropped bool
		eps     string // the routed endpoints, in order
	}
	wants := map[string]want{
		"nftables demo/etp-local:http":        {false, "10.244.0.31:8080"},
		"nftables demo/etp-local-remote:http": {true, "10.244.1.32:8080 10.244.1.33:8080"},
		"ipvs demo/etp-local:http":            {false, "10.244.0.31:8080"},
		"ipvs demo/etp-local-remote:http":     {false, "10.244.1.32:8080 10.244.1.33:8080"},
	}
	for _, r := range records(t, out.Dir)[results.TypeFairness] {
		f := r.Fairness
		w, ok := wants[f.Dataplane+" "+f.Service]
		if !ok {
			continue
		}
		delete(wants, f.Dataplane+" "+f.Service)
		var eps []string
		for _, ep := range f.Endpoints {
			eps = append(eps, ep.Endpoint)
			if w.dropped {
				continue
			}
			if ep.Count == 0 || ep.Sources["203.0.113.10"] != ep.Count {
				t.Errorf("%s %s %s: %d connections, sources %v; want some, all from the client", f.Dataplane, f.Service, ep.Endpoint, ep.Count, ep.Sources)
			}
		}
		if f.ExpectDropped != w.dropped || strings.Join(eps, " ") != w.eps {
			t.Errorf("%s %s: dropped %v, endpoints %v; want dropped %v, %s", f.Dataplane, f.Service, f.ExpectDropped, eps, w.dropped, w.eps)
		}
		if w.dropped && f.Errors != f.Connections {
			t.Errorf("%s %s: %d of %d answered on a dropped path", f.Dataplane, f.Service, f.Connections-f.Errors, f.Connections)
		}
	}
	if len(wants) != 0 {
		t.Errorf("no records for %v", wants)
	}
	s, err := results.ReadSummary(out.Dir)
	if err != nil || len(s.Warnings) != 0 {
		t.Errorf("summary: %v, warnings %q", err, s.Warnings)
	}
}
