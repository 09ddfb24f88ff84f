package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
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

// TestRunPathsThroughIPVSAndKubeProxy runs, for real, two paths beyond the
// native rule-chain dataplanes: externalTrafficPolicy Local through IPVS
// (in the user-mode-linux guest when the host has no IPVS), where a node
// with no local endpoint sends the connections to the cluster's endpoints
// with the client's address kept, and the dual-stack split on IPv6
// through kube-proxy's own code (one driver per family), where each
// endpoint takes a third and the servers' counts equal the kernel's.
func TestRunPathsThroughIPVSAndKubeProxy(t *testing.T) {
	svclabBinary(t)
	if _, err := os.Stat("/proc/net/ip_vs"); err != nil {
		labtest.RequireBinary(t, "linux")
	}
	t.Run("ipvs etp-local-vs-cluster", func(t *testing.T) {
		s := runSummary(t, "run", "etp-local-vs-cluster", "--dataplane", "ipvs", "--connections", "600", "--json")
		if warnings := measurementWarnings(&s); len(s.Runs) != 3 || !s.Complete || len(warnings) != 0 {
			t.Fatalf("%d runs, complete %v, warnings %v", len(s.Runs), s.Complete, warnings)
		}
		for _, r := range s.Runs {
			if r.Service != "demo/etp-local-remote:http" {
				continue
			}
			if r.ExpectDropped || r.Errors != 0 || !r.CountsAgree || len(r.Endpoints) != 2 {
				t.Fatalf("%s: dropped %v, %d errors, counts agree %v, %d endpoints; want both remote endpoints", r.Service, r.ExpectDropped, r.Errors, r.CountsAgree, len(r.Endpoints))
			}
			for _, ep := range r.Endpoints {
				if ep.Count == 0 || ep.Sources["203.0.113.10"] != ep.Count {
					t.Errorf("%s: %d connections, sources %v; want all from the client 203.0.113.10", ep.Endpoint, ep.Count, ep.Sources)
				}
			}
		}
	})
	t.Run("kube-proxy dual-stack-split-ipv6", func(t *testing.T) {
		s := runSummary(t, "run", "dual-stack-split-ipv6", "--engine", "kube-proxy", "--connections", "900", "--json")
		if len(s.Runs) != 2 || !s.Complete {
			t.Fatalf("%d runs, complete %v; warnings %v", len(s.Runs), s.Complete, s.Warnings)
		}
		for _, r := range s.Runs {
			if r.Family != "IPv6" || r.Address != "[fd00:10:96::120]:80" || r.Errors != 0 || !r.CountsAgree || len(r.Endpoints) != 3 {
				t.Errorf("%s: %s to %s, %d errors, counts agree %v, %d endpoints", r.Dataplane, r.Family, r.Address, r.Errors, r.CountsAgree, len(r.Endpoints))
			}
			for _, ep := range r.Endpoints {
				if math.Abs(ep.Share-1.0/3) > 0.08 {
					t.Errorf("%s %s: share %.3f, want 0.333 ± 0.08", r.Dataplane, ep.Endpoint, ep.Share)
				}
			}
		}
	})
}

// runSummary runs svclab with a fresh --out and decodes its --json summary.
func runSummary(t *testing.T, args ...string) results.Summary {
	t.Helper()
	args = append(args, "--out", filepath.Join(t.TempDir(), "run"))
	stdout, stderr, code := runSvclab(t, args...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	var s results.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("stdout is not summary.json: %v\n%s", err, stdout)
	}
	return s
}

// measurementWarnings are s's warnings less those saying the machine was
// shared (results.Summary.SharingWarnings): under `go test ./...` other
// packages' tests run beside this one.
func measurementWarnings(s *results.Summary) []string {
	shared := s.SharingWarnings()
	return slices.DeleteFunc(slices.Clone(s.Warnings), func(w string) bool { return slices.Contains(shared, w) })
}
