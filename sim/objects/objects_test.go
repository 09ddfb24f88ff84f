package objects

import (
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
)

func mustDecode(t *testing.T, name string, raw string) *Objects {
	t.Helper()
	o, err := Decode(name, []byte(raw))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return o
}

func TestBadIPsNormalised(t *testing.T) {
	raw, err := os.ReadFile("testdata/badips.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o := mustDecode(t, "badips.yaml", string(raw))
	if len(o.Services) != 1 {
		t.Fatalf("%d services, want 1", len(o.Services))
	}
	s := o.Services[0]
	checks := []struct{ what, got, want string }{
		{"clusterIP", s.ClusterIP.String(), "172.30.0.41"},
		{"externalIP", s.ExternalIPs[0].String(), "192.168.99.22"},
		{"LB IP", s.LoadBalancerIPs[0].String(), "1.2.3.4"},
		{"source range", s.LoadBalancerSourceRanges[0].String(), "203.0.113.0/25"},
		{"endpoint", s.Endpoints[0].IP.String(), "10.180.0.1"},
		{"type", string(s.Type), "LoadBalancer"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.what, c.got, c.want)
		}
	}
	if e := s.Endpoints[0]; !e.Ready || !e.Serving || e.Terminating {
		t.Errorf("endpoint conditions %+v: nil conditions are ready, serving, not terminating", e)
	}
	if s.Ports[0].TargetPort != 80 || s.Ports[0].NodePort != 3001 {
		t.Errorf("port %+v", s.Ports[0])
	}
}

const defaultsYAML = `
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  clusterIP: 10.96.0.10
  sessionAffinity: ClientIP
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: np, namespace: x}
spec:
  type: NodePort
  clusterIPs: [10.96.0.11, fd00::11]
  externalTrafficPolicy: Local
  internalTrafficPolicy: Local
  trafficDistribution: PreferClose
  ports: [{name: http, port: 80, targetPort: http, nodePort: 30080, protocol: UDP}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: np-a, namespace: x, labels: {kubernetes.io/service-name: np}}
addressType: IPv4
ports: [{name: http, port: 8080, protocol: UDP}]
endpoints:
- addresses: [10.1.0.1]
  nodeName: n1
  zone: z1
  hints: {forZones: [{name: z1}]}
- addresses: [10.1.0.2]
  conditions: {ready: false, serving: true, terminating: true}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: np-b, namespace: x, labels: {kubernetes.io/service-name: np}}
addressType: IPv6
ports: [{name: http, port: 8080, protocol: UDP}]
endpoints:
- addresses: ["fd00:1::1"]
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {topology.kubernetes.io/zone: z1}}
status:
  addresses: [{type: InternalIP, address: 192.168.0.1}, {type: InternalIP, address: "fd00::1"}, {type: Hostname, address: n1}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
`

func TestDefaultsAndConversion(t *testing.T) {
	o := mustDecode(t, "c.yaml", defaultsYAML)
	web, np := o.Services[0], o.Services[1]
	if web.Namespace != "default" || web.Type != model.ClusterIP || web.Ports[0].Protocol != model.TCP || web.Ports[0].TargetPort != 80 {
		t.Errorf("web defaults: %+v", web)
	}
	if !web.Affinity.ClientIP || web.Affinity.Timeout != 10800 {
		t.Errorf("web affinity %+v, want ClientIP 10800", web.Affinity)
	}
	if web.ExternalPolicyLocal || web.InternalPolicyLocal {
		t.Errorf("web policies must default to Cluster")
	}
	if got := *o.KubeServices[0].Spec.IPFamilyPolicy; got != "SingleStack" {
		t.Errorf("ipFamilyPolicy %s", got)
	}
	if np.SecondaryClusterIP != netip.MustParseAddr("fd00::11") || !np.ExternalPolicyLocal || !np.InternalPolicyLocal || np.TrafficDistribution != "PreferClose" {
		t.Errorf("np: %+v", np)
	}
	if np.Ports[0].TargetPort != 8080 {
		t.Errorf("named targetPort resolved to %d, want the slice's 8080", np.Ports[0].TargetPort)
	}
	if len(np.Endpoints) != 3 {
		t.Fatalf("np has %d endpoints, want 3 (two slices, both families)", len(np.Endpoints))
	}
	e0, e1 := np.Endpoints[0], np.Endpoints[1]
	if e0.Node != "n1" || e0.Zone != "z1" || len(e0.ZoneHints) != 1 || e1.Ready || !e1.Serving || !e1.Terminating {
		t.Errorf("endpoints %+v %+v", e0, e1)
	}
	n := o.LocalNode("")
	if n.Name != "n1" || n.Zone != "z1" || n.IPv4.String() != "192.168.0.1" || n.IPv6.String() != "fd00::1" {
		t.Errorf("node %+v", n)
	}
	if got := o.IgnoredLine(); got != "c.yaml: ignored 2 objects of other kinds (ConfigMap 1, Deployment 1)" {
		t.Errorf("ignored line %q", got)
	}
}

func TestJSONList(t *testing.T) {
	raw := `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","namespace":"b"},"spec":{"clusterIP":"10.0.0.1","ports":[{"port":53,"protocol":"UDP"}]}}]}`
	o := mustDecode(t, "l.json", raw)
	if len(o.Services) != 1 || o.Services[0].Ports[0].Protocol != model.UDP {
		t.Fatalf("%+v", o.Services)
	}
}

func TestBadObjects(t *testing.T) {
	svc := func(spec string) string {
		return "apiVersion: v1\nkind: Service\nmetadata: {namespace: default, name: web}\nspec:\n" + spec
	}
	slice := func(svcName, addrType, addr string) string {
		return "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {namespace: default, name: web-1, labels: {kubernetes.io/service-name: " + svcName + "}}\naddressType: " + addrType + "\nendpoints: [{addresses: [\"" + addr + "\"]}]\n"
	}
	cases := []struct{ name, raw, want string }{
		{"invalid IP", svc("  clusterIP: 10.0.0.300\n  ports: [{port: 80}]\n"),
			`cluster.yaml: Service default/web: spec.clusterIP: "10.0.0.300" is not an IP address`},
		{"port out of range", svc("  clusterIP: 10.0.0.3\n  ports: [{port: 70000}]\n"),
			`cluster.yaml: Service default/web: spec.ports[0].port: 70000 is out of range`},
		{"slice without service", svc("  clusterIP: 10.0.0.3\n  ports: [{port: 80}]\n") + slice("nope", "IPv4", "10.1.1.1"),
			`cluster.yaml: EndpointSlice default/web-1: metadata.labels[kubernetes.io/service-name]: names Service default/nope, which is not in the file`},
		{"IPv6 in IPv4 slice", svc("  clusterIP: 10.0.0.3\n  ports: [{port: 80}]\n") + slice("web", "IPv4", "fd00::1"),
			`cluster.yaml: EndpointSlice default/web-1: endpoints[0].addresses[0]: fd00::1 is an IPv6 address in an IPv4 slice`},
		{"not YAML or JSON", "apiVersion: v1\nkind: List\nitems: [\n  - {a: b\n",
			`cluster.yaml: document 1 is neither YAML nor JSON`},
		{"not JSON", `{"apiVersion": "v1", "kind": "List", "items": [}`,
			`cluster.yaml: document 1 is not valid JSON`},
		{"unknown field", svc("  clusterIP: 10.0.0.3\n  portz: [{port: 80}]\n"),
			`cluster.yaml: Service default/web: spec.portz: unknown field`},
		{"duplicate field", svc("  clusterIP: 10.0.0.3\n  clusterIP: 10.0.0.4\n  ports: [{port: 80}]\n"),
			`cluster.yaml: `},
		{"wrong type", svc("  clusterIP: 10.0.0.3\n  ports: [{port: eighty}]\n"),
			`cluster.yaml: Service default/web: spec.ports.port: `},
		{"no kind", "metadata: {name: x}\n", `not a Kubernetes object`},
		{"IPv4 family mismatch", svc("  clusterIPs: [10.0.0.3]\n  ipFamilies: [IPv6]\n  ports: [{port: 80}]\n"),
			`spec.ipFamilies[0]: IPv6, but clusterIPs[0] 10.0.0.3 is IPv4`},
		{"bad source range", svc("  type: LoadBalancer\n  clusterIP: 10.0.0.3\n  loadBalancerSourceRanges: [1.2.3.4/40]\n  ports: [{port: 80}]\n"),
			`spec.loadBalancerSourceRanges[0]: "1.2.3.4/40" is not a CIDR`},
		{"empty", "# nothing\n", "cluster.yaml: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode("cluster.yaml", []byte(c.raw))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if _, ok := err.(*Error); !ok {
				t.Errorf("error is %T, want *Error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error\n  %v\nwant it to contain\n  %s", err, c.want)
			}
			t.Log(err)
			if strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	cases := []struct {
		raw  string
		want bool
	}{
		{defaultsYAML, true},
		{`{"apiVersion":"v1","kind":"List","items":[]}`, true},
		{"name: x\nsynthetic: {services: 3}\n", false},
		{"{services: [], name: x}\n", false},
		{"# a comment\napiVersion: v1\nkind: Service\n", true},
		{"# a header document of comments only\n---\napiVersion: v1\nkind: Service\n", true},
		{"# only comments\n---\n# more\n", false},
	}
	for _, c := range cases {
		if got := Sniff([]byte(c.raw)); got != c.want {
			t.Errorf("Sniff(%.30q) = %v, want %v", c.raw, got, c.want)
		}
	}
}
