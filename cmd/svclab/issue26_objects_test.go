package main

// Issue 26's points about Kubernetes objects input that need no root, one
// test each, named after the point.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// objectsFile writes text as an objects file and returns its path.
func objectsFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// unresolvedPort is a Service whose port http has a named targetPort and
// an EndpointSlice that has no port of that name.
const unresolvedPort = `apiVersion: v1
kind: Service
metadata: {namespace: demo, name: web}
spec:
  clusterIP: 10.96.0.10
  ports: [{name: http, port: 80, targetPort: web}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {namespace: demo, name: web-a, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
ports: [{name: metrics, port: 9090}]
endpoints: [{addresses: [10.244.1.2]}]
`

// TestIssue26Point6UnresolvedNamedTargetPortRejects: a service port no
// EndpointSlice port resolves has no endpoints for kube-proxy, which writes
// REJECT; svclab must not DNAT it to the service's endpoints.
func TestIssue26Point6UnresolvedNamedTargetPortRejects(t *testing.T) {
	path := objectsFile(t, unresolvedPort)
	for _, tc := range []struct{ mode, want, wantNot string }{
		{"iptables", `"demo/web:http has no endpoints" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j REJECT`, "-j DNAT"},
		{"nftables", `no-endpoint-services { 10.96.0.10 . tcp . 80 comment "demo/web:http" : goto reject-chain }`, "dnat to"},
		{"ipvs", "", "10.244.1.2"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := dispatch([]string{"render", "--mode", tc.mode, "--scenario", path}, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.want) || strings.Contains(stdout.String(), tc.wantNot) {
				t.Errorf("render --mode %s: want %q and no %q:\n%s", tc.mode, tc.want, tc.wantNot, stdout.String())
			}
		})
	}
}

// TestIssue26Point11ImportScaleRefusedWithTheLimit: --scale K that the
// shape cannot reach (or that leaves no service) is refused at once with
// the real limit, exit 2, not "the scenario does not load (a bug)".
func TestIssue26Point11ImportScaleRefusedWithTheLimit(t *testing.T) {
	for _, tc := range []struct{ scale, want string }{
		{"24", "--scale at most"},
		{"1000", "--scale at most"},
		{"10000", "--scale at most"},
		{"0.0001", "--scale at least"},
	} {
		t.Run(tc.scale, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "s.yaml")
			badInput(t, tc.want, "import", cluster500, "--scenario", out, "--scale", tc.scale)
		})
	}
}

// TestIssue26Point13ImportUnknownNodeRefused: --node must name a Node of
// the file or a node its endpoints run on.
func TestIssue26Point13ImportUnknownNodeRefused(t *testing.T) {
	badInput(t, "no-such-node", "import", cluster500, "--node", "no-such-node")
}

// TestIssue26Point14PositionBeyondTheServicesRefused: --position K beyond
// the synthetic services is refused, not clamped silently.
func TestIssue26Point14PositionBeyondTheServicesRefused(t *testing.T) {
	badInput(t, "--position 99999", "render", "--mode", "iptables", "--scenario", "two-endpoints", "--services", "10", "--position", "99999")
}
