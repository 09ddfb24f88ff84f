package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/sim/results"
)

// externalClusterIP is a ClusterIP reached from the external client: not
// from the cluster CIDR, so kube-proxy masquerades it.
const externalClusterIP = `name: external-clusterip
cluster: {clusterCIDR: 10.244.0.0/16}
services:
  - namespace: demo
    name: web
    clusterIP: 10.96.0.81
    ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]
    endpoints: [10.244.0.21, {ip: 10.244.1.21, node: node-2}]
fairness:
  dataplanes: [iptables-nft, nftables]
  from: external
`

// TestRunFromOutsideTheCluster runs, for real, the nodeport-external
// scenario (an external client to a NodePort, one endpoint behind a second
// node) and a ClusterIP reached from outside: on each dataplane every
// endpoint takes its share, the servers' counts equal the kernel's, each
// pod saw only the node's address (masqueraded), and the host namespace
// is unchanged.
func TestRunFromOutsideTheCluster(t *testing.T) {
	svclabBinary(t)
	before := rootSnapshot(t)
	custom := filepath.Join(t.TempDir(), "external-clusterip.yaml")
	if err := os.WriteFile(custom, []byte(externalClusterIP), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		scenario  string
		endpoints int
		address   string
	}{
		{"nodeport-external", 3, "192.168.99.1:30080"},
		{custom, 2, "10.96.0.81:80"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.scenario), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			stdout, stderr, code := runSvclab(t, "run", tt.scenario, "--connections", "900", "--json", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			var s results.Summary
			if err := json.Unmarshal([]byte(stdout), &s); err != nil {
				t.Fatalf("stdout is not summary.json: %v\n%s", err, stdout)
			}
			if len(s.Runs) != 2 || !s.Complete {
				t.Fatalf("%d runs, complete %v; warnings %v", len(s.Runs), s.Complete, s.Warnings)
			}
			for _, r := range s.Runs {
				checkExternalRun(t, r, tt.endpoints, tt.address)
			}
		})
	}
	if after := rootSnapshot(t); after != before {
		t.Fatalf("the host namespace changed:\n%s", firstDifference(before, after))
	}
}

func checkExternalRun(t *testing.T, r results.FairnessRun, endpoints int, address string) {
	t.Helper()
	if r.From != "external" || r.Address != address || r.Source != "203.0.113.10" || r.Errors != 0 || !r.CountsAgree {
		t.Errorf("%s: from %s %s to %s, %d errors, counts agree %v", r.Dataplane, r.From, r.Source, r.Address, r.Errors, r.CountsAgree)
	}
	if len(r.Endpoints) != endpoints {
		t.Fatalf("%s: %d endpoints, want %d", r.Dataplane, len(r.Endpoints), endpoints)
	}
	for _, ep := range r.Endpoints {
		if math.Abs(ep.Share-1/float64(endpoints)) > 0.08 {
			t.Errorf("%s %s: share %.3f, want %.3f ± 0.08", r.Dataplane, ep.Endpoint, ep.Share, 1/float64(endpoints))
		}
		if ep.Sources["192.168.99.1"] != ep.Count || len(ep.Sources) != 1 {
			t.Errorf("%s %s: sources %v for %d connections; want all masqueraded to the node's 192.168.99.1", r.Dataplane, ep.Endpoint, ep.Sources, ep.Count)
		}
	}
}
