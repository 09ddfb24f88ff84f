package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kubeProxyDriverOrSkip points the driver lookup at ./bin of the checkout
// and skips when `make kube-proxy` has not built the 1.37 driver (fails
// under CI=true).
func kubeProxyDriverOrSkip(t *testing.T) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "bin"))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("SVCLAB_KUBE_PROXY_DRIVERS") == "" {
		t.Setenv("SVCLAB_KUBE_PROXY_DRIVERS", dir)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("SVCLAB_KUBE_PROXY_DRIVERS"), "kube-proxy-driver-1.37")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the kube-proxy driver is not built: %v", err)
		}
		t.Skipf("the kube-proxy driver is not built (make kube-proxy): %v", err)
	}
}

// TestIssue26Point1NamesCannotInjectRules: a Service name that would
// inject rules through the kube-proxy engine (kube-proxy trusts the API
// server to have validated names) is refused at load, exit 2, before
// anything is rendered; the same file with a valid name renders.
func TestIssue26Point1NamesCannotInjectRules(t *testing.T) {
	kubeProxyDriverOrSkip(t)
	doc := func(name string) string {
		q, _ := json.Marshal(name)
		return "apiVersion: v1\nkind: Service\nmetadata: {namespace: demo, name: " + string(q) + "}\n" +
			"spec:\n  clusterIP: 10.96.0.10\n  ports: [{name: http, port: 80}]\n"
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"render", "--engine", "kube-proxy", "--mode", "iptables", "--scenario", objectsFile(t, doc("web"))}, &stdout, &stderr); code != 0 {
		t.Fatalf("a valid name: exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{"web\" -j ACCEPT\n-A INPUT -j DROP\n#", "web\n-A KUBE-SERVICES -j ACCEPT"} {
		for _, mode := range []string{"iptables", "nftables"} {
			var stdout, stderr bytes.Buffer
			code := dispatch([]string{"render", "--engine", "kube-proxy", "--mode", mode, "--scenario", objectsFile(t, doc(name))}, &stdout, &stderr)
			if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "metadata.name") {
				t.Errorf("--mode %s, name %q: exit %d, stderr %q, stdout:\n%s\nwant exit 2 naming metadata.name, nothing rendered", mode, name, code, stderr.String(), stdout.String())
			}
		}
	}
}

// TestIssue26Point6KubeProxyEngineRejectsToo: the driver, fed the same
// objects (the unresolved port has no slice port), writes what the native
// engine writes for a port no EndpointSlice port resolves: REJECT.
func TestIssue26Point6KubeProxyEngineRejectsToo(t *testing.T) {
	kubeProxyDriverOrSkip(t)
	path := objectsFile(t, unresolvedPort)
	for _, engine := range []string{"native", "kube-proxy"} {
		var stdout, stderr bytes.Buffer
		if code := dispatch([]string{"render", "--engine", engine, "--mode", "iptables", "--scenario", path}, &stdout, &stderr); code != 0 {
			t.Fatalf("--engine %s: exit %d: %s", engine, code, stderr.String())
		}
		want := `-A KUBE-SERVICES -m comment --comment "demo/web:http has no endpoints" -m tcp -p tcp -d 10.96.0.10 --dport 80 -j REJECT`
		if !strings.Contains(stdout.String(), want) || strings.Contains(stdout.String(), "-j DNAT") {
			t.Errorf("--engine %s: want %q and no DNAT:\n%s", engine, want, stdout.String())
		}
	}
}
