package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// full is a valid scenario with every section; each case below breaks one
// thing in it.
const full = `name: full
cluster:
  serviceCIDR: 10.96.0.0/12
services:
  - namespace: demo
    name: web
    clusterIP: 10.96.0.10
    ports: [{name: http, port: 80, targetPort: 8080}]
    endpoints: [10.244.1.2, 10.244.1.3]
fairness:
  dataplanes: [iptables-nft]
  connections: 200
  mode: http
sweep:
  services: [1, 1000]
  warmup: 50
  throughputConnections: 500
`

// edit replaces old (which must occur in full) by new.
func edit(old, new string) string {
	if !strings.Contains(full, old) {
		panic("no " + old)
	}
	return strings.Replace(full, old, new, 1)
}

// lineOf is the 1-based line of the first line of doc containing s.
func lineOf(doc, s string) int {
	for i, l := range strings.Split(doc, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}

func manyEndpoints(n int) string {
	ips := make([]string, n)
	for i := range ips {
		ips[i] = fmt.Sprintf("10.244.%d.%d", 1+i/250, 1+i%250)
	}
	return "[" + strings.Join(ips, ", ") + "]"
}

// TestValidationRefuses: issue 10 points 3, 9 (names) and 11, each case
// failing on the code before this package validated them.
func TestValidationRefuses(t *testing.T) {
	tests := []struct {
		name, yaml string
		at         string // text on the line the error must name; "" for line 0
		field, msg string
	}{
		{"point 9: namespace with a newline (rule injection)", edit("namespace: demo", `namespace: "demo\n-A KUBE-SERVICES -j DROP\n#"`), "namespace:", "services[0].namespace", "lower case alphanumeric"},
		{"point 9: namespace with a space", edit("namespace: demo", `namespace: "Demo Space;rm -rf/web"`), "namespace:", "services[0].namespace", "alphanumeric"},
		{"point 11: namespace with unicode", edit("namespace: demo", "namespace: démo"), "namespace:", "services[0].namespace", "lower case"},
		{"point 11: namespace with NUL", edit("namespace: demo", `namespace: "de\0mo"`), "namespace:", "services[0].namespace", "lower case"},
		{"point 9: namespace too long", edit("namespace: demo", "namespace: "+strings.Repeat("a", 64)), "namespace:", "services[0].namespace", "63 characters"},
		{"point 9: service name starting with a digit", edit("name: web", "name: 1web"), "name: 1web", "services[0].name", "start with an alphabetic character"},
		{"point 9: service name with upper case", edit("name: web", "name: Web"), "name: Web", "services[0].name", "lower case"},
		{"point 9: port name too long", edit("name: http", "name: http-port-is-long"), "ports:", "services[0].ports[0].name", "15 characters"},
		{"point 9: port name without a letter", edit("name: http", `name: "8080"`), "ports:", "services[0].ports[0].name", "at least one letter"},
		{"point 9: port name with double hyphen", edit("name: http", "name: h--p"), "ports:", "services[0].ports[0].name", "consecutive hyphens"},
		{"point 9: port name with a quote", edit("name: http", `name: "h\"p"`), "ports:", "services[0].ports[0].name", "alpha-numeric"},
		{"point 3: duplicate endpoint IPs", edit("[10.244.1.2, 10.244.1.3]", "[10.244.1.2, 10.244.1.2]"), "endpoints:", "services[0].endpoints[1]", "also endpoints[0]"},
		{"point 11: loopback endpoint", edit("10.244.1.3]", "127.0.0.1]"), "endpoints:", "services[0].endpoints[1]", "loopback"},
		{"point 11: unspecified endpoint", edit("10.244.1.3]", "0.0.0.0]"), "endpoints:", "services[0].endpoints[1]", "unspecified"},
		{"point 11: multicast endpoint", edit("10.244.1.3]", "224.0.0.5]"), "endpoints:", "services[0].endpoints[1]", "multicast"},
		{"point 11: link-local endpoint", edit("10.244.1.3]", "169.254.1.1]"), "endpoints:", "services[0].endpoints[1]", "link-local"},
		{"point 11: loopback clusterIP", edit("clusterIP: 10.96.0.10", "clusterIP: 127.0.0.1"), "clusterIP:", "services[0].clusterIP", "loopback"},
		{"point 11: endpoint is the client pod", edit("10.244.1.3]", ClientPodIP+"]"), "endpoints:", "services[0].endpoints[1]", "client pod"},
		{"point 11: endpoint is the clusterIP", edit("10.244.1.3]", "10.96.0.10]"), "endpoints:", "services[0].endpoints[1]", "clusterIP of services[0]"},
		{"point 11: clusterIP outside the service CIDR", edit("clusterIP: 10.96.0.10", "clusterIP: 172.30.0.10"), "clusterIP:", "services[0].clusterIP", "outside the service CIDR"},
		{"point 9: node name with a space", edit("[10.244.1.2, 10.244.1.3]", "[{ip: 10.244.1.2, node: \"node 1\"}]"), "endpoints:", "services[0].endpoints[0].node", "node name"},
		{"point 11: negative requestsPerConn", edit("mode: http", "mode: keepalive\n  requestsPerConn: -5"), "requestsPerConn:", "fairness.requestsPerConn", "-5 is out of range"},
		{"point 11: negative requestsPerConn in http mode", edit("mode: http", "mode: http\n  requestsPerConn: -1"), "requestsPerConn:", "fairness.requestsPerConn", "out of range"},
		{"point 11: negative throughputConnections", edit("throughputConnections: 500", "throughputConnections: -500"), "throughputConnections:", "sweep.throughputConnections", "out of range"},
		{"point 11: fairness connections: 0", edit("connections: 200", "connections: 0"), "connections: 0", "fairness.connections", "0 is out of range"},
		{"point 11: sweep connections: 0", edit("warmup: 50", "warmup: 50\n  connections: 0"), "connections: 0", "sweep.connections", "0 is out of range"},
		{"point 11: 9.2e18 connections", edit("connections: 200", "connections: 9.2e18"), "connections:", "fairness.connections", "use 1..10000000"},
		{"point 11: max int64 connections", edit("connections: 200", "connections: 9223372036854775807"), "connections:", "fairness.connections", "out of range"},
		{"point 11: negative warmup at its own line", edit("warmup: 50", "warmup: -1"), "warmup:", "sweep.warmup", "-1 is out of range"},
		{"point 11: explicit concurrency: 0", edit("mode: http", "mode: http\n  concurrency: 0"), "concurrency:", "fairness.concurrency", "out of range"},
		{"point 11: NaN rate", edit("mode: http", "mode: http\n  rate: .nan"), "rate:", "fairness.rate", "rate NaN"},
		{"point 11: sweep of 10M services", edit("services: [1, 1000]", "services: [1, 10000000]"), "services: [1,", "sweep.services[1]", "known to hold"},
		{"point 11: sweep beyond the service CIDR", edit("serviceCIDR: 10.96.0.0/12", "serviceCIDR: 10.96.0.0/24"), "services: [1,", "sweep.services[1]", "do not fit in service CIDR"},
		{"point 11: duplicate dataplane", edit("dataplanes: [iptables-nft]", "dataplanes: [iptables-nft, iptables-nft]"), "dataplanes:", "fairness.dataplanes", "listed twice"},
		{"point 11: empty dataplane list", edit("dataplanes: [iptables-nft]", "dataplanes: []"), "dataplanes:", "fairness.dataplanes", "empty list"},
		{"point 11: second YAML document", full + "---\nname: other\n", "name: other", "", "second YAML document"},
		{"point 11: pods beyond the lab limit", edit("[10.244.1.2, 10.244.1.3]", manyEndpoints(MaxLabPods+1)), "- namespace:", "services", "lab.allowLargeLabs: true"},
		{"targetPort: 0", edit("targetPort: 8080", "targetPort: 0"), "ports:", "services[0].ports[0].targetPort", "out of range"},
		{"CIDR with host bits", edit("serviceCIDR: 10.96.0.0/12", "serviceCIDR: 10.96.0.1/12"), "serviceCIDR:", "cluster.serviceCIDR", "host bits"},
		{"walk probe of 3 services", edit("warmup: 50", "warmup: 50\n  walkProbe: [3]"), "walkProbe:", "sweep.walkProbe[0]", "out of range"},
		{"walk probe listed twice", edit("warmup: 50", "warmup: 50\n  walkProbe: [5000, 5000]"), "walkProbe:", "sweep.walkProbe[1]", "also walkProbe[0]"},
		{"walk probe without a rule walk", edit("warmup: 50", "warmup: 50\n  dataplanes: [nftables]\n  walkProbe: [5000]"), "walkProbe:", "sweep.walkProbe", "walks rules"},
		{"addrtype probe not a walk probe's size", edit("warmup: 50", "warmup: 50\n  walkProbe: [2500]\n  addrTypeProbe: [5000]"), "addrTypeProbe:", "sweep.addrTypeProbe", "add 5000 to sweep.walkProbe"},
		{"addrtype probe beyond the node ports", edit("warmup: 50", "warmup: 50\n  walkProbe: [40000]\n  addrTypeProbe: [40000]"), "addrTypeProbe:", "sweep.addrTypeProbe", "at most 22768"},
		{"recent probe without a walk probe", edit("warmup: 50", "warmup: 50\n  recentProbe: 8000"), "recentProbe:", "sweep.recentProbe", "add a size to sweep.walkProbe"},
		{"recent probe of too many lists", edit("warmup: 50", "warmup: 50\n  walkProbe: [2500]\n  recentProbe: 200000"), "recentProbe:", "sweep.recentProbe", "want 1..100000"},
		{"recent probe of negative lists", edit("warmup: 50", "warmup: 50\n  walkProbe: [2500]\n  recentProbe: -3"), "recentProbe:", "sweep.recentProbe", "want 1..100000"},
		{"addrtype probe listed twice", edit("warmup: 50", "warmup: 50\n  walkProbe: [2500]\n  addrTypeProbe: [2500, 2500]"), "addrTypeProbe:", "sweep.addrTypeProbe[1]", "also addrTypeProbe[0]"},
		{"sync probe of 2 services", edit("warmup: 50", "warmup: 50\n  syncProbe: [2]"), "syncProbe:", "sweep.syncProbe[0]", "out of range"},
		{"sync probe listed twice", edit("warmup: 50", "warmup: 50\n  syncProbe: [10000, 10000]"), "syncProbe:", "sweep.syncProbe[1]", "also syncProbe[0]"},
		{"lookup probe listed twice", edit("warmup: 50", "warmup: 50\n  dataplanes: [nftables]\n  positions: [uniform]\n  lookupProbe: [10000, 10000]"), "lookupProbe:", "sweep.lookupProbe[1]", "also lookupProbe[0]"},
		{"lookup probe without a map lookup", edit("warmup: 50", "warmup: 50\n  dataplanes: [iptables-legacy]\n  positions: [uniform]\n  lookupProbe: [10000]"), "lookupProbe:", "sweep.lookupProbe", "looks services up in a map"},
		{"lookup probe without the uniform position", edit("warmup: 50", "warmup: 50\n  dataplanes: [nftables]\n  positions: [last]\n  lookupProbe: [10000]"), "lookupProbe:", "sweep.lookupProbe", "uniform position"},
		{"probe CPU below 0", edit("warmup: 50", "warmup: 50\n  probeCPU: -1"), "probeCPU:", "sweep.probeCPU", "out of range"},
		{"probe CPU past CPU_SETSIZE", edit("warmup: 50", "warmup: 50\n  probeCPU: 1024"), "probeCPU:", "sweep.probeCPU", "out of range"},
		{"unknown batch kind", edit("warmup: 50", "warmup: 50\n  incrementalBatch: 10\n  incrementalBatchKind: pods"), "incrementalBatchKind:", "sweep.incrementalBatchKind", "unknown batch kind"},
		{"Service creations without a batch", edit("warmup: 50", "warmup: 50\n  incrementalBatchKind: services"), "incrementalBatchKind:", "sweep.incrementalBatchKind", "not set"},
		{"Service creations on IPVS", edit("warmup: 50", "warmup: 50\n  dataplanes: [nftables, ipvs]\n  incrementalBatch: 10\n  incrementalBatchKind: services"), "dataplanes: [nftables", "sweep.dataplanes[1]", "does not create services"},
		{"Service creations beyond the service CIDR", strings.Replace(edit("serviceCIDR: 10.96.0.0/12", "serviceCIDR: 10.96.0.0/24"), "services: [1, 1000]\n  warmup: 50", "services: [1, 200]\n  warmup: 50\n  incrementalBatch: 100\n  incrementalBatchKind: services", 1), "incrementalBatchKind:", "sweep.incrementalBatchKind", "100 new services"},
		{"scenario name with a slash", edit("name: full", "name: ../../x"), "name: ../", "name", "must consist of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tt.yaml))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FieldError", err)
			}
			wantLine := 0
			if tt.at != "" {
				wantLine = lineOf(tt.yaml, tt.at)
			}
			if fe.Line != wantLine || fe.Field != tt.field || !strings.Contains(fe.Error(), tt.msg) {
				t.Fatalf("got %v\nwant line %d field %q containing %q", fe, wantLine, tt.field, tt.msg)
			}
			if want := fmt.Sprintf("s.yaml:%d: ", fe.Line); fe.Line > 0 && !strings.HasPrefix(fe.Error(), want) {
				t.Fatalf("%q does not start with %q", fe.Error(), want)
			}
			if strings.Contains(fe.Error(), "\n-A") {
				t.Fatalf("the error carries the injected rule on its own line: %q", fe.Error())
			}
		})
	}
}

func TestValidationAccepts(t *testing.T) {
	tests := []struct{ name, yaml string }{
		{"the full scenario", full},
		{"large lab with the option", edit("[10.244.1.2, 10.244.1.3]", manyEndpoints(MaxLabPods+1)) + "lab: {allowLargeLabs: true}\n"},
		{"warmup: 0 is kept", edit("warmup: 50", "warmup: 0")},
		{"port names as Kubernetes allows", edit("name: http", "name: metrics-1")},
		{"namespace of digits", edit("namespace: demo", `namespace: "123"`)},
		{"walk probe", edit("warmup: 50", "warmup: 50\n  walkProbe: [4, 50000]")},
		{"sync probe", edit("warmup: 50", "warmup: 50\n  syncProbe: [3, 20000]")},
		{"addrtype probe", edit("warmup: 50", "warmup: 50\n  walkProbe: [2500, 5000]\n  addrTypeProbe: [2500]")},
		{"recent probe", edit("warmup: 50", "warmup: 50\n  walkProbe: [2500, 5000]\n  recentProbe: 8000")},
		{"lookup probe", edit("warmup: 50", "warmup: 50\n  dataplanes: [iptables-legacy, nftables]\n  positions: [last, uniform]\n  lookupProbe: [10000, 80000]")},
		{"probe CPU", edit("warmup: 50", "warmup: 50\n  probeCPU: 1")},
		{"Service creations", edit("warmup: 50", "warmup: 50\n  dataplanes: [nftables, iptables-legacy]\n  incrementalBatch: 100\n  incrementalBatchKind: services")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("s.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(tt.yaml, "probeCPU: 1") != (sc.Sweep.ProbeCPU != nil && *sc.Sweep.ProbeCPU == 1) {
				t.Fatalf("probeCPU became %v", sc.Sweep.ProbeCPU)
			}
			if strings.Contains(tt.yaml, "warmup: 0") && sc.Sweep.Warmup != 0 {
				t.Fatalf("warmup: 0 became %d", sc.Sweep.Warmup)
			}
			if want := BatchEndpoints; strings.Contains(tt.yaml, "incrementalBatchKind: services") {
				if sc.Sweep.IncrementalBatchKind != BatchServices {
					t.Fatalf("incrementalBatchKind: services became %q", sc.Sweep.IncrementalBatchKind)
				}
			} else if sc.Sweep.IncrementalBatchKind != want {
				t.Fatalf("the default batch kind is %q, want %q", sc.Sweep.IncrementalBatchKind, want)
			}
		})
	}
}

// TestFilesOverTheLimitAreRefusedBeforeParsing is issue 10 point 12.
func TestFilesOverTheLimitAreRefusedBeforeParsing(t *testing.T) {
	big := []byte("services:\n" + strings.Repeat("#", MaxFileSize) + "\n")
	if _, err := Parse("big.yaml", big); err == nil || !strings.Contains(err.Error(), "8 MiB") {
		t.Fatalf("Parse: %v", err)
	}
	many := []byte("sweep:\n  services: [" + strings.Repeat("1,", MaxItems) + "1]\n")
	if _, err := Parse("many.yaml", many); err == nil || !strings.Contains(err.Error(), "list items") {
		t.Fatalf("Parse of %d items: %v", MaxItems, err)
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "8 MiB") || !strings.HasPrefix(err.Error(), path) {
		t.Fatalf("Load: %v", err)
	}
}
