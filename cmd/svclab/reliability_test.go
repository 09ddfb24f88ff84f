package main

// The reliability issue's points that need no root, one test each, named
// after the point (the privileged ones are in reliability_linux_test.go).

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// badInput runs svclab in-process and checks the bad-input convention: exit
// 2, one error line (plus the usage hint) on stderr, nothing on stdout.
func badInput(t *testing.T, wantInErr string, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := dispatch(args, &stdout, &stderr)
	if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), wantInErr) {
		t.Errorf("svclab %v: exit %d, stdout %q, stderr %q; want exit 2, no stdout, an error naming %q", args, code, stdout.String(), stderr.String(), wantInErr)
	}
}

func scenarioFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func serviceWith(endpoints, namespace string) string {
	return "services:\n  - namespace: " + namespace + "\n    name: web\n    clusterIP: 10.96.0.10\n" +
		"    ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]\n    endpoints: " + endpoints + "\n"
}

// Point 3: duplicate endpoint IPs are refused at load time.
func TestPoint03DuplicateEndpointsRefused(t *testing.T) {
	badInput(t, "s.yaml:", "render", "--scenario", scenarioFile(t, serviceWith("[10.244.1.2, 10.244.1.2]", "demo")))
}

// Point 9: names cannot inject rules or break comment quoting.
func TestPoint09NamesCannotInjectRules(t *testing.T) {
	for _, ns := range []string{`"demo\n-A KUBE-SERVICES -j DROP\n#"`, `"Demo Space;rm -rf/"`} {
		badInput(t, "namespace", "render", "--scenario", scenarioFile(t, serviceWith("[10.244.1.2]", ns)))
	}
}

// Point 10: every p-value compare prints lies in [0, 1], also for a run
// against a cut copy of itself.
func TestPoint10PValuesInTheUnitInterval(t *testing.T) {
	base := filepath.Join("..", "..", "results", "sweep-quick", "results.jsonl")
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:len(lines)*2/3], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"compare", "--format", "csv", base, cut}, &stdout, &stderr); code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr.String())
	}
	rows, err := csv.NewReader(&stdout).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("csv: %v (%d rows)", err, len(rows))
	}
	col := -1
	for i, h := range rows[0] {
		if h == "p" || h == "p_value" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("no p column in %v", rows[0])
	}
	for _, r := range rows[1:] {
		if p, err := strconv.ParseFloat(r[col], 64); err == nil && (p < 0 || p > 1) {
			t.Errorf("p = %v in %v", p, r)
		}
	}
}

// Point 11: what used to pass validation and fail later is refused at load
// time, before any lab, as one file:line: field: message line.
func TestPoint11ValidationBeforeTheLab(t *testing.T) {
	svc := func(eps string) string { return serviceWith(eps, "demo") }
	tests := []struct{ name, yaml, field string }{
		{"unicode name", serviceWith("[10.244.1.2]", "démo"), "namespace"},
		{"loopback endpoint", svc("[127.0.0.1]"), "endpoints"},
		{"multicast endpoint", svc("[224.0.0.1]"), "endpoints"},
		{"endpoint is the client pod", svc("[10.244.255.1]"), "endpoints"},
		{"endpoint is the clusterIP", svc("[10.96.0.10]"), "endpoints"},
		{"zero connections", svc("[10.244.1.2]") + "fairness: {connections: 0}\n", "connections"},
		{"huge connections", svc("[10.244.1.2]") + "fairness: {connections: 9200000000000000000}\n", "connections"},
		{"negative requestsPerConn", svc("[10.244.1.2]") + "fairness: {requestsPerConn: -1}\n", "requestsPerConn"},
		{"sweep of 10M", "sweep: {services: [10000000]}\n", "services"},
		{"negative warmup", "sweep: {services: [1], warmup: -5}\n", "warmup"},
		{"second document", svc("[10.244.1.2]") + "---\nname: two\n", "document"},
		{"clusterIP outside the service CIDR", strings.Replace(svc("[10.244.1.2]"), "10.96.0.10", "192.0.2.10", 1), "clusterIP"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { badInput(t, tc.field, "render", "--scenario", scenarioFile(t, tc.yaml)) })
	}
}

// Point 12: a scenario file over 8 MiB is refused before it is parsed.
func TestPoint12OversizedScenarioRefusedFast(t *testing.T) {
	// A sparse file of 1 GiB: refusing it by its size reads (and
	// allocates) at most the limit; parsing or reading it whole would
	// allocate over a gigabyte. Memory, not time, so the check holds on a
	// loaded machine.
	big := filepath.Join(t.TempDir(), "big.yaml")
	f, err := os.Create(big)
	if err == nil {
		err = f.Truncate(1 << 30)
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	badInput(t, "MiB", "render", "--scenario", big)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("refusing a 1 GiB scenario allocated %d MiB: it was read, not refused by its size", alloc>>20)
	}
}

// Point 13: one exit-code convention: bad input is 2 with the message on
// stderr, whatever the command.
func TestPoint13BadInputExitsTwo(t *testing.T) {
	empty := t.TempDir()
	badInput(t, "nothing to report", "report", empty)
	badInput(t, "no such file", "trace", "--dump", filepath.Join(empty, "missing.rules"), "--dst", "10.96.0.1:80")
	badInput(t, "no such file", "analyze", "--dump", filepath.Join(empty, "missing.rules"))
	badInput(t, "--services -1", "render", "--services", "-1")
	var stdout bytes.Buffer
	if code := dispatch([]string{"help", "scenario"}, &stdout, &bytes.Buffer{}); code != 0 || !strings.Contains(stdout.String(), "services[].endpoints") {
		t.Errorf("svclab help scenario: exit %d", code)
	}
}

// Point 15: gate refuses to compare runs of different scenarios.
func TestPoint15GateRefusesAnotherScenario(t *testing.T) {
	base := filepath.Join("..", "..", "results", "baseline", "ci-smoke")
	other := filepath.Join("..", "..", "results", "sweep-quick")
	badInput(t, "scenario", "gate", base, other)
}
