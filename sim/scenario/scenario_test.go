package scenario

import (
	"errors"
	"strings"
	"testing"
)

const base = `name: t
cluster:
  clusterCIDR: 10.0.0.0/8
  serviceCIDR: 172.30.0.0/16
services:
  - namespace: ns3
    name: svc3
    clusterIP: 172.30.0.43
    ports: [{name: p80, protocol: TCP, port: 80, targetPort: 80}]
    endpoints: [10.0.3.2, 10.0.3.3]
`

func TestParseRejectsBadInput(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		wantLine  int
		wantField string
		wantMsg   string
	}{
		{"unknown top-level field", base + "colour: blue\n", 11, "colour", "unknown field"},
		{"unknown nested field", strings.Replace(base, "    clusterIP:", "    clusterIp: 1.2.3.4\n    clusterIP:", 1), 8, "clusterIp", "allowed here:"},
		{"unknown endpoint field", strings.Replace(base, "[10.0.3.2, 10.0.3.3]", "[{ip: 10.0.3.2, weight: 3}]", 1), 10, "weight", "unknown field"},
		{"IPv6 clusterIP", strings.Replace(base, "172.30.0.43", "fd00::1", 1), 8, "services[0].clusterIP", "not an IPv4 address"},
		{"garbage clusterIP", strings.Replace(base, "172.30.0.43", "banana", 1), 8, "services[0].clusterIP", "not an IPv4 address"},
		{"duplicate service", base + `  - namespace: ns3
    name: svc3
    clusterIP: 172.30.0.44
    ports: [{port: 80}]
`, 12, "services[1].name", "duplicate service ns3/svc3"},
		{"port out of range", strings.Replace(base, "port: 80,", "port: 70000,", 1), 9, "services[0].ports[0].port", "out of range"},
		{"too many services", base + "synthetic: {services: 70000, endpointsPerService: 1}\n", 11, "synthetic.services", "do not fit in service CIDR"},
		{"bad endpoint", strings.Replace(base, "10.0.3.3]", "10.0.3.300]", 1), 10, "services[0].endpoints[1]", "not an IPv4 address"},
		{"wrong type", strings.Replace(base, "port: 80,", "port: eighty,", 1), 9, "", "cannot unmarshal"},
		{"empty", "", 0, "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tt.yaml))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FieldError", err)
			}
			if fe.Line != tt.wantLine || fe.Field != tt.wantField || !strings.Contains(fe.Error(), tt.wantMsg) {
				t.Fatalf("got line %d field %q: %v\nwant line %d field %q containing %q", fe.Line, fe.Field, fe, tt.wantLine, tt.wantField, tt.wantMsg)
			}
			if !strings.HasPrefix(fe.Error(), "s.yaml") {
				t.Fatalf("error does not name the file: %v", fe)
			}
		})
	}
}

func TestParseAcceptsTheIssueShape(t *testing.T) {
	s, err := Parse("s.yaml", []byte(base+"synthetic:\n  services: 10000\n  endpointsPerService: 2\n  seed: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	if m.Services.Len() != 10001 {
		t.Fatalf("services = %d, want 10001", m.Services.Len())
	}
	if first := m.Services.At(0); first.Name != "svc3" || first.Ports[0].TargetPort != 80 {
		t.Fatalf("first service = %+v, want the explicit svc3 (placement first)", first)
	}
	if got := m.Cluster.MasqueradeMark(); got != "0x00004000" {
		t.Fatalf("mark %s", got)
	}
}

func TestZeroEndpointsIsValid(t *testing.T) {
	if _, err := Parse("s.yaml", []byte(strings.Replace(base, "endpoints: [10.0.3.2, 10.0.3.3]", "endpoints: []", 1))); err != nil {
		t.Fatal(err)
	}
}

func TestEmbeddedScenariosAllParse(t *testing.T) {
	names := Names()
	if len(names) == 0 {
		t.Fatal("no embedded scenarios")
	}
	for _, n := range names {
		if _, err := Load(n); err != nil {
			t.Errorf("embedded scenario %s: %v", n, err)
		}
	}
	if _, err := Load("no-such-scenario"); err == nil || !strings.Contains(err.Error(), "embedded:") {
		t.Fatalf("unknown name: %v", err)
	}
}
