package objects

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// q quotes s as a YAML (JSON) double-quoted scalar, escapes and all.
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// svcDoc is one Service of namespace ns and name name.
func svcDoc(ns, name, clusterIP, ports string) string {
	return "apiVersion: v1\nkind: Service\nmetadata: {namespace: " + q(ns) + ", name: " + q(name) + "}\n" +
		"spec:\n  clusterIP: " + clusterIP + "\n  ports: " + ports + "\n"
}

// sliceDoc is one EndpointSlice of service svc in ns.
func sliceDoc(ns, name, svc, addrs string) string {
	return "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {namespace: " + q(ns) + ", name: " + q(name) +
		", labels: {kubernetes.io/service-name: " + q(svc) + "}}\naddressType: IPv4\nports: [{name: http, port: 8080}]\n" +
		"endpoints: [{addresses: " + addrs + "}]\n"
}

const httpPort = "[{name: http, port: 80}]"

// TestIssue26Point2ObjectsValidatedAsScenarios: every check sim/scenario
// makes for services: applies to objects too, at load time, as "file: Kind
// ns/name: field: message", quoting input only as a short escaped excerpt.
func TestIssue26Point2ObjectsValidatedAsScenarios(t *testing.T) {
	long := strings.Repeat("a", 300)
	for _, tc := range []struct {
		name, raw, field string
	}{
		{"point 1: service name injects a rule", svcDoc("demo", "web\" -j ACCEPT\n-A INPUT -j DROP\n#", "10.96.0.10", httpPort), "metadata.name"},
		{"point 2: namespace with a quote", svcDoc(`de"mo`, "web", "10.96.0.10", httpPort), "metadata.namespace"},
		{"point 2: namespace with NUL", svcDoc("de\x00mo", "web", "10.96.0.10", httpPort), "metadata.namespace"},
		{"point 2: namespace with a newline", svcDoc("de\nmo", "web", "10.96.0.10", httpPort), "metadata.namespace"},
		{"point 2: namespace with ;", svcDoc("de;mo", "web", "10.96.0.10", httpPort), "metadata.namespace"},
		{"point 2: name with emoji", svcDoc("demo", "web\U0001F600", "10.96.0.10", httpPort), "metadata.name"},
		{"point 2: name with U+202E", svcDoc("demo", "web\u202ebew", "10.96.0.10", httpPort), "metadata.name"},
		{"point 2: upper-case name", svcDoc("demo", "Web", "10.96.0.10", httpPort), "metadata.name"},
		{"point 2: 300-character name", svcDoc("demo", long, "10.96.0.10", httpPort), "metadata.name"},
		{"point 2: 300-character namespace", svcDoc(long, "web", "10.96.0.10", httpPort), "metadata.namespace"},
		{"point 2: port name with a quote", svcDoc("demo", "web", "10.96.0.10", `[{name: "h\"p", port: 80}]`), "spec.ports[0].name"},
		{"point 2: duplicate port names", svcDoc("demo", "web", "10.96.0.10", "[{name: http, port: 80}, {name: http, port: 81}]"), "spec.ports[1].name"},
		{"point 2: duplicate clusterIPs", svcDoc("demo", "a", "10.96.0.10", httpPort) + "---\n" + svcDoc("demo", "b", "10.96.0.10", httpPort), "spec.clusterIP"},
		{"point 2: duplicate nodePorts", strings.Replace(svcDoc("demo", "a", "10.96.0.10", "[{name: http, port: 80, nodePort: 30080}]"), "spec:\n", "spec:\n  type: NodePort\n", 1) + "---\n" +
			strings.Replace(svcDoc("demo", "b", "10.96.0.11", "[{name: http, port: 80, nodePort: 30080}]"), "spec:\n", "spec:\n  type: NodePort\n", 1), "spec.ports[0].nodePort"},
		{"point 2: loopback clusterIP", svcDoc("demo", "web", "127.0.0.1", httpPort), "spec.clusterIP"},
		{"point 2: broadcast clusterIP", svcDoc("demo", "web", "255.255.255.255", httpPort), "spec.clusterIP"},
		{"point 2: multicast clusterIP", svcDoc("demo", "web", "224.0.0.1", httpPort), "spec.clusterIP"},
		{"point 2: link-local clusterIP", svcDoc("demo", "web", "169.254.1.1", httpPort), "spec.clusterIP"},
		{"point 2: endpoint is the service's own clusterIP", svcDoc("demo", "web", "10.96.0.10", httpPort) + "---\n" + sliceDoc("demo", "web-a", "web", "[10.96.0.10]"), "endpoints[0].addresses[0]"},
		{"point 2: slice name with a newline", svcDoc("demo", "web", "10.96.0.10", httpPort) + "---\n" + sliceDoc("demo", "web\n-a", "web", "[10.244.1.2]"), "metadata.name"},
		{"point 2: loopback endpoint", svcDoc("demo", "web", "10.96.0.10", httpPort) + "---\n" + sliceDoc("demo", "web-a", "web", "[127.0.0.1]"), "endpoints[0].addresses[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("x.yaml", []byte(tc.raw))
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("Decode accepted it (error %v); want an *Error at %s", err, tc.field)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "x.yaml: ") || !strings.Contains(msg, tc.field+": ") {
				t.Errorf("error %q: want x.yaml: Kind ns/name: %s: message", msg, tc.field)
			}
			if strings.ContainsAny(msg, "\n\r\x00\u202e") || len(msg) > 400 {
				t.Errorf("error %q (%d bytes): want one short line with the input escaped", msg, len(msg))
			}
		})
	}
}

const lbDoc = `apiVersion: v1
kind: Service
metadata: {namespace: demo, name: lb}
spec:
  type: LoadBalancer
  clusterIP: 10.96.0.20
  ipFamilyPolicy: %s
  trafficDistribution: %s
  ports: [{name: http, port: 80, nodePort: 30080}]
status:
  loadBalancer:
    ingress:
    - ip: 203.0.113.7
      ports: [{port: 80, protocol: TCP, error: %s}]
`

// TestIssue26Point7AnonymizeLeaksNoFreeText: ipFamilyPolicy and
// trafficDistribution are enums (free text is refused at load), and an
// ingress port's error, written by cloud controllers, is not copied.
func TestIssue26Point7AnonymizeLeaksNoFreeText(t *testing.T) {
	for _, tc := range []struct{ name, policy, dist, field string }{
		{"ipFamilyPolicy free text", "acct-4711-secret", "PreferClose", "spec.ipFamilyPolicy"},
		{"trafficDistribution free text", "SingleStack", "acct-4711-secret", "spec.trafficDistribution"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("x.yaml", []byte(sprintf(lbDoc, tc.policy, tc.dist, "example.com/Quota")))
			if err == nil || !strings.Contains(err.Error(), tc.field+": ") {
				t.Fatalf("Decode: %v; want an error at %s", err, tc.field)
			}
		})
	}
	o, err := Decode("x.yaml", []byte(sprintf(lbDoc, "SingleStack", "PreferClose", "acct4711.example.com/SecretQuota")))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Encode(&b, Anonymize(o, []byte("k"))); err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"acct4711", "SecretQuota"} {
		if strings.Contains(b.String(), leak) {
			t.Errorf("the anonymised copy holds %q:\n%s", leak, b.String())
		}
	}
}

// TestIssue26Point14YAMLDocumentEnds: "..." ends a YAML document; what
// follows is the next one (not dropped), and an empty document is skipped.
func TestIssue26Point14YAMLDocumentEnds(t *testing.T) {
	a, b := svcDoc("demo", "a", "10.96.0.10", httpPort), svcDoc("demo", "b", "10.96.0.11", httpPort)
	for _, tc := range []struct{ name, raw string }{
		{"a bare document after ...", a + "...\n" + b},
		{"... then ---", a + "...\n---\n" + b + "...\n"},
		{"an empty document", "---\n...\n---\n" + a + "---\n" + b},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Decode("x.yaml", []byte(tc.raw))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if len(o.Services) != 2 {
				t.Fatalf("%d services, want 2", len(o.Services))
			}
		})
	}
}

// TestIssue26Point14V1beta1SliceRefused: a discovery.k8s.io/v1beta1
// EndpointSlice (no longer served; kube-proxy does not read it) is an
// error, not silently dropped.
func TestIssue26Point14V1beta1SliceRefused(t *testing.T) {
	raw := svcDoc("demo", "web", "10.96.0.10", httpPort) + "---\n" +
		strings.Replace(sliceDoc("demo", "web-a", "web", "[10.244.1.2]"), "discovery.k8s.io/v1", "discovery.k8s.io/v1beta1", 1)
	_, err := Decode("x.yaml", []byte(raw))
	if err == nil || !strings.Contains(err.Error(), "v1beta1") {
		t.Fatalf("Decode: %v; want an error naming discovery.k8s.io/v1beta1", err)
	}
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
