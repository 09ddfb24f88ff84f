package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	labcluster "github.com/svclab/svclab/lab/cluster"
	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/cluster"
)

func TestClusterAuditDryRunPrintsManifests(t *testing.T) {
	stdout, stderr, code := runCommand(t, "cluster", "audit", "--dry-run", "--image", "svclab:test", "--namespace", "lab",
		"--mode", "nftables", "--node-selector", "pool=gen7", "--objects", auditTestCluster)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	docs := strings.Split(stdout, "\n---\n")
	var cm corev1.ConfigMap
	var ds appsv1.DaemonSet
	if len(docs) != 2 || yaml.UnmarshalStrict([]byte(docs[0]), &cm) != nil || yaml.UnmarshalStrict([]byte(docs[1]), &ds) != nil {
		t.Fatalf("want a ConfigMap and a DaemonSet:\n%s", stdout)
	}
	if !strings.HasPrefix(stdout, "# binaryData.objects.yaml.gz elided: 7 Services, ") || cm.Namespace != "lab" || ds.Namespace != "lab" {
		t.Errorf("want the objects summarized and the namespace lab:\n%s", stdout)
	}
	if got := ds.Spec.Template.Spec.NodeSelector["pool"]; got != "gen7" {
		t.Errorf("node selector pool = %q, want gen7", got)
	}
}

func TestClusterAuditBadInput(t *testing.T) {
	base := []string{"cluster", "audit", "--dry-run", "--objects", auditTestCluster}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "nftables"}, "give --image"},
		{[]string{"--image", "i"}, "give --mode"},
		{[]string{"--image", "i", "--mode", "auto"}, "not detected"},
		{[]string{"--image", "i", "--mode", "pf"}, `--mode "pf"`},
		{[]string{"--image", "i", "--mode", "iptables", "--iptables-backend", "x"}, "want legacy or nft"},
		{[]string{"--image", "i", "--mode", "iptables", "--kube-proxy-version", "0.1"}, "--kube-proxy-version"},
		{[]string{"--image", "i", "--mode", "iptables", "--node-selector", "pool"}, `"pool" is not LABEL=VALUE`},
		{[]string{"--image", "i", "--mode", "iptables", "--objects", "no-such-file"}, "no-such-file"},
	} {
		_, stderr, code := runCommand(t, append(append([]string(nil), base...), tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 with %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// TestClusterAuditNodePacksTheReport runs what a DaemonSet pod runs, with a
// dump instead of --live: the report is read back from its output as the
// runner reads a pod's log, in the real audit types; so is the exit status
// and message of an audit that could not be made.
func TestClusterAuditNodePacksTheReport(t *testing.T) {
	waited := 0
	defer func(w func()) { auditNodeWait = w }(auditNodeWait)
	auditNodeWait = func() { waited++ }
	t.Setenv(cluster.NodeEnv, "node-1")
	tampered := renderNode(t, "nftables", dropLine("10.180.0.72 . 8080"))
	gzipped := gzipFile(t, auditTestCluster) // as the ConfigMap holds the objects
	for _, tc := range []struct {
		name     string
		args     []string
		wantExit int
		want     string // in the report's first Service, or in the error
	}{
		{"findings", []string{"--dump", tampered}, 1, "ns7/web"},
		{"gzipped objects", []string{"--dump", tampered, "--objects", gzipped}, 1, "ns7/web"},
		{"bad input", []string{"--dump", tampered, "--node", "nope"}, 2, `node "nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"audit-node", "--objects", auditTestCluster, "--engine", "native"}, tc.args...)
			if err := runCluster(args, &stdout, &stderr); err != nil {
				t.Fatalf("audit-node: %v", err)
			}
			a, err := cluster.ReadNodeAudit(&stdout)
			if err != nil {
				t.Fatalf("ReadNodeAudit: %v\n%s", err, stdout.String())
			}
			got := a.Error
			if a.Report != nil && len(a.Report.Services) > 0 {
				got = a.Report.Services[0].Service
			}
			if a.Node != "node-1" || a.Exit != tc.wantExit || !strings.Contains(got, tc.want) {
				t.Errorf("node %q exit %d %q, want node-1 exit %d %q", a.Node, a.Exit, got, tc.wantExit, tc.want)
			}
		})
	}
	if waited != 3 {
		t.Errorf("audit-node waited %d times, want once per run", waited)
	}
}

func gzipFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(raw)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "objects.yaml.gz")
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFinishClusterAudit checks the exit status of each outcome, and that
// the summary is printed when nodes did not report.
func TestFinishClusterAudit(t *testing.T) {
	clean := cluster.NodeResult{Node: "n1", Audit: &cluster.NodeAudit{Node: "n1", Report: &audit.Report{Node: "n1"}}}
	silent := cluster.NodeResult{Node: "n2", NoReport: "pod p2 Running"}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		nodes    []cluster.NodeResult
		err      error
		wantCode int
		wantOut  string
	}{
		{"clean", context.Background(), []cluster.NodeResult{clean}, nil, 0, "1 clean, 0 not"},
		{"a node did not report", context.Background(), []cluster.NodeResult{clean, silent}, fmt.Errorf("%w: n2", labcluster.ErrNotReported), 1, "no report: pod p2 Running"},
		{"no node", context.Background(), nil, labcluster.ErrNoNodes, 2, ""},
		{"interrupted", cancelled, nil, context.Canceled, 130, ""},
		{"the API server refused", context.Background(), nil, errors.New("forbidden"), 1, ""},
		{"reports came, the cleanup failed", context.Background(), []cluster.NodeResult{clean}, errors.New("pods still there"), 1, "1 clean, 0 not"},
	} {
		var stdout, stderr bytes.Buffer
		err := finishClusterAudit(tc.ctx, tc.nodes, tc.err, "text", &stdout)
		if code := exitCode(err, commands["cluster"], &stderr); code != tc.wantCode || !strings.Contains(stdout.String(), tc.wantOut) {
			t.Errorf("%s: exit %d, want %d with %q:\n%s%s", tc.name, code, tc.wantCode, tc.wantOut, stdout.String(), stderr.String())
		}
	}
}
