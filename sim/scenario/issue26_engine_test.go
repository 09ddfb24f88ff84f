package scenario

import (
	"errors"
	"strings"
	"testing"
)

// TestIssue26Point10KubeProxyEngineRefusesEBPF: the kube-proxy engine with
// a dataplane kube-proxy has no mode for is refused when the scenario is
// loaded (a FieldError, exit 2), in either order of the overrides and in
// the file itself.
func TestIssue26Point10KubeProxyEngineRefusesEBPF(t *testing.T) {
	sc, err := Load("split-2")
	if err != nil {
		t.Fatal(err)
	}
	for _, dp := range []string{"ebpf", "ebpf-sock"} {
		var fe *FieldError
		withDP, err := sc.WithDataplanes([]string{"nftables", dp})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := withDP.WithKubeProxy(EngineKubeProxy, ""); !errors.As(err, &fe) || !strings.Contains(err.Error(), dp) {
			t.Errorf("--dataplane %s then --engine kube-proxy: %v, want a FieldError naming %s", dp, err, dp)
		}
		withKP, err := sc.WithKubeProxy(EngineKubeProxy, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := withKP.WithDataplanes([]string{dp}); !errors.As(err, &fe) {
			t.Errorf("--engine kube-proxy then --dataplane %s: %v, want a FieldError", dp, err)
		}
	}
	src := "name: kp-ebpf\nkubeProxy: {engine: kube-proxy}\nservices:\n  - {namespace: demo, name: web, clusterIP: 10.96.0.10, ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}], endpoints: [10.244.1.2]}\nfairness: {dataplanes: [ebpf]}\n"
	if _, err := Parse("kp-ebpf.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), "fairness.dataplanes") {
		t.Errorf("a file with engine kube-proxy and dataplane ebpf: %v, want an error at fairness.dataplanes", err)
	}
	if _, err := sc.WithKubeProxy(EngineKubeProxy, ""); err != nil {
		t.Errorf("split-2 (iptables-nft) with the kube-proxy engine: %v", err)
	}
}
