package iptrace

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/iptables"
)

// kube-proxy's TestTracePacket (k8s.io/kubernetes@v1.37.2,
// pkg/proxy/iptables/proxier_test.go): its node IPs and its seven cases. The
// input is under testdata, once as written there and once with its
// multi-word comments quoted.
var kubeProxyNodeIPs = []string{"192.168.0.2", "192.168.1.2", "192.168.99.11", "2001:db8::1", "2001:db8:1::2"}

func TestKubeProxyTracePacket(t *testing.T) {
	var local []netip.Addr
	for _, a := range kubeProxyNodeIPs {
		local = append(local, netip.MustParseAddr(a))
	}
	tr := mustTracer(t, loadDump(t, "kube-proxy-TestTracePacket.rules"), Options{LocalAddrs: local})
	tests := []struct {
		name, src, dst string
		port           uint16
		output         string // kube-proxy's: endpoints joined by ", ", or a verdict, or ""
		masq           bool
	}{
		{"no match", "10.0.0.2", "10.0.0.3", 80, "", false},
		{"single endpoint", "10.0.0.2", "172.30.0.41", 80, "10.180.0.1:80", false},
		{"multiple endpoints", "10.0.0.2", "172.30.0.44", 80, "10.180.0.4:80, 10.180.0.5:80", false},
		{"LOCAL, KUBE-MARK-MASQ", "192.168.0.2", "192.168.99.22", 80, "10.180.0.2:80", true},
		{"DROP", "203.0.113.2", "192.168.99.22", 80, "DROP", false},
		{"ACCEPT (NodePortHealthCheck)", "192.168.0.2", "192.168.0.2", 30000, "ACCEPT", false},
		{"REJECT", "10.0.0.2", "172.30.0.46", 80, "REJECT", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustTrace(t, tr, tcp(tc.src, tc.dst, tc.port))
			if out := kubeProxyOutput(got, tc.output); out != tc.output || got.Masquerade != tc.masq {
				t.Errorf("output %q masq %v, want %q masq %v\n%s", out, got.Masquerade, tc.output, tc.masq, got)
			}
		})
	}
}

// kubeProxyOutput renders a trace as kube-proxy's tracer does: the DNAT
// endpoints, else the verdict if it is the one expected ("" for an
// accepted packet kube-proxy's tracer saw no verdict for).
func kubeProxyOutput(tr Trace, want string) string {
	if len(tr.Endpoints) > 0 {
		var eps []string
		for _, e := range tr.Endpoints {
			eps = append(eps, e.Endpoint.String())
		}
		return strings.Join(eps, ", ")
	}
	if tr.Verdict == Accept && want == "" {
		return ""
	}
	return string(tr.Verdict)
}

// TestKubeProxyTracePacketUnquoted: the input as kube-proxy's test writes it
// is refused at line 14 ("Bad argument `health'"), where the real
// iptables-restore v1.8.9 refuses it.
func TestKubeProxyTracePacketUnquoted(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "kube-proxy-TestTracePacket-unquoted.rules"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = iptables.ParseString(string(b))
	var pe *iptables.ParseError
	if !errors.As(err, &pe) || pe.Line != 14 || !strings.Contains(err.Error(), `bad argument "health"`) {
		t.Fatalf("error = %v, want line 14: bad argument \"health\"", err)
	}
}
