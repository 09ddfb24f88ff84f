//go:build linux && controlplane

// The cluster integration test: `make test-controlplane` builds etcd,
// kube-apiserver and the Job controller (make controlplane) and runs it
// with the build tag controlplane. It is not part of `make test`: a cold
// build of those programs takes most of an hour on 2 cores.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	labcluster "github.com/svclab/svclab/lab/cluster"
	"github.com/svclab/svclab/lab/cluster/clustertest"
	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/sim/cluster"
)

const itNamespace = "svclab-it"

// The matrix both tests use: two pools, two dataplanes, one scenario and
// version: 4 cells.
var itMatrix = []string{"--namespace", itNamespace, "--image", "svclab:test",
	"--pool", "a=svclab.io/test-pool=a", "--pool", "b=svclab.io/test-pool=b",
	"--scenario", "split-2", "--dataplane", "iptables-nft,nftables", "--engine", "native"}

// startControlPlane starts etcd, kube-apiserver and the Job controller
// from SVCLAB_CONTROLPLANE_BIN (default the clone's bin/), with the test's
// namespace and its default ServiceAccount (which kube-controller-manager's
// serviceaccount controller would create; it does not run here).
func startControlPlane(t *testing.T) *clustertest.ControlPlane {
	t.Helper()
	labtest.RequireRoot(t)
	bin := os.Getenv("SVCLAB_CONTROLPLANE_BIN")
	if bin == "" {
		bin, _ = filepath.Abs(filepath.Join("..", "..", "bin"))
	}
	labtest.Require(t, clustertest.Missing(bin))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cp, err := clustertest.Start(ctx, bin, t.TempDir())
	if err != nil {
		t.Fatalf("control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("control plane: %v", err)
		}
	})
	c := cp.Client.CoreV1()
	if _, err := c.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: itNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ServiceAccounts(itNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return cp
}

// dryRunJobs is what `svclab cluster run --dry-run` prints for itMatrix,
// as one JSON body per Job.
func dryRunJobs(t *testing.T, extra ...string) [][]byte {
	t.Helper()
	var out, errw bytes.Buffer
	if err := runCluster(append([]string{"run", "--dry-run"}, append(itMatrix, extra...)...), &out, &errw); err != nil {
		t.Fatalf("cluster run --dry-run: %v (%s)", err, errw.String())
	}
	var bodies [][]byte
	for _, doc := range strings.Split(out.String(), "\n---\n") {
		b, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("--dry-run printed a document that is not YAML: %v\n%s", err, doc)
		}
		bodies = append(bodies, b)
	}
	return bodies
}

// apiLeftovers lists the Jobs and pods of the test's namespace.
func apiLeftovers(t *testing.T, cp *clustertest.ControlPlane) []string {
	t.Helper()
	ctx := context.Background()
	var left []string
	jobs, err := cp.Client.BatchV1().Jobs(itNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs.Items {
		left = append(left, "jobs/"+j.Name)
	}
	pods, err := cp.Client.CoreV1().Pods(itNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		left = append(left, "pods/"+p.Name)
	}
	return left
}

// podMounts are the mounts of /proc/self/mountinfo that a node agent's pod
// made (its root is a tmpfs named svclab-pod): none may outlive the pod.
func podMounts(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "svclab-pod") {
			found = append(found, l)
		}
	}
	return found
}

// checkMerged checks a merged report (--format json): one row per cell of
// itMatrix, each from its pool's node, complete, the servers' counts equal
// to the kernel's.
func checkMerged(t *testing.T, what string, report []byte) {
	t.Helper()
	var rows []cluster.Row
	if err := json.Unmarshal(report, &rows); err != nil {
		t.Fatalf("%s: the report is not JSON rows: %v\n%s", what, err, report)
	}
	got := map[string]bool{}
	for _, r := range rows {
		got[r.Pool+"/"+r.Dataplane] = true
		if r.Node != r.Pool+"-node-1" || !r.Complete || r.CountsAgree == nil || !*r.CountsAgree || r.Scenario != "split-2" {
			t.Errorf("%s: row %+v: want node %s-node-1, complete, counts agree, scenario split-2", what, r, r.Pool)
		}
	}
	want := []string{"a/iptables-nft", "a/nftables", "b/iptables-nft", "b/nftables"}
	for _, w := range want {
		if !got[w] {
			t.Errorf("%s: no row of cell %s (rows: %v)", what, w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: cells %v, want %v", what, got, want)
	}
}

// TestClusterRunDryRunAcceptedByAPIServer submits what --dry-run prints to a
// real kube-apiserver, as kubectl create -f would, with strict field
// validation: with server-side dry run, then for real; the Job controller
// then creates each index's pod, and the runner's Cleanup removes the Jobs
// and pods. Edited Jobs show the server does validate.
func TestClusterRunDryRunAcceptedByAPIServer(t *testing.T) {
	cp := startControlPlane(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	jobs := dryRunJobs(t)
	if len(jobs) != 2 {
		t.Fatalf("--dry-run printed %d Jobs, want 2 (one per pool)", len(jobs))
	}
	rest := cp.Client.BatchV1().RESTClient()
	create := func(body []byte, dryRun bool) error {
		req := rest.Post().Namespace(itNamespace).Resource("jobs").Param("fieldValidation", "Strict").Body(body)
		if dryRun {
			req = req.Param("dryRun", "All")
		}
		return req.Do(ctx).Error()
	}
	for _, tc := range []struct {
		name    string
		edit    func(string) string
		wantErr string
	}{
		{name: "as printed", edit: func(s string) string { return s }},
		{name: "not indexed", edit: func(s string) string {
			return strings.Replace(s, `"completionMode":"Indexed"`, `"completionMode":"NonIndexed"`, 1)
		}, wantErr: "backoffLimitPerIndex"},
		{name: "unknown field", edit: func(s string) string {
			return strings.Replace(s, `"parallelism":`, `"paralelism":1,"parallelism":`, 1)
		}, wantErr: "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, j := range jobs {
				err := create([]byte(tc.edit(string(j))), true)
				switch {
				case tc.wantErr == "" && err != nil:
					t.Errorf("server-side dry run refused the Job --dry-run printed: %v\n%s", err, j)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("server-side dry run: %v, want an error with %q", err, tc.wantErr)
				}
			}
		})
	}
	if left := apiLeftovers(t, cp); len(left) > 0 {
		t.Fatalf("server-side dry run stored %v", left)
	}
	for _, j := range jobs {
		if err := create(j, false); err != nil {
			t.Fatalf("create the Job --dry-run printed: %v", err)
		}
	}
	// The Job controller acts on them: each index's pod, pending (no node
	// agent runs in this test).
	var pods *corev1.PodList
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		var err error
		if pods, err = cp.Client.CoreV1().Pods(itNamespace).List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if len(pods.Items) == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pods after a minute, want 4 (2 Jobs x 2 indexes); job-controller log:\n%s", len(pods.Items), cp.Log("job-controller"))
		}
	}
	for _, p := range pods.Items {
		if p.Annotations["batch.kubernetes.io/job-completion-index"] == "" || p.Labels[cluster.RunLabel] == "" || !*p.Spec.Containers[0].SecurityContext.Privileged {
			t.Errorf("pod %s: annotations %v labels %v", p.Name, p.Annotations, p.Labels)
		}
	}
	var j0 map[string]any
	_ = json.Unmarshal(jobs[0], &j0)
	runID := j0["metadata"].(map[string]any)["labels"].(map[string]any)[cluster.RunLabel].(string)
	r := &labcluster.Runner{Target: labcluster.Target{Client: cp.Client, Namespace: itNamespace, RunID: runID, Poll: 200 * time.Millisecond}}
	if err := r.Cleanup(); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	if left := apiLeftovers(t, cp); len(left) > 0 {
		t.Fatalf("left after Cleanup: %v", left)
	}
}

// TestClusterRunFourCellsEndToEnd runs `svclab cluster run` (the command,
// with the test's kubeconfig) on a 4-cell matrix against the real API
// server and Job controller, with the node agent standing in for the nodes'
// kubelets: the cells' pods run `svclab cluster cell` (svclab run split-2 of
// their cell) as root on this machine, the runner reads each pod's log
// through kube-apiserver's pods/log (from the agent's kubelet endpoint),
// merges the cells into one report and deletes the Jobs and pods. svclab
// merge of the collected cells then gives the same report.
func TestClusterRunFourCellsEndToEnd(t *testing.T) {
	cp := startControlPlane(t)
	startNodeAgent(t, cp)
	out := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	err := runCluster(append([]string{"run", "--kubeconfig", cp.Kubeconfig, "--out", out, "--format", "json", "--timeout", "10m"}, itMatrix...), &stdout, &stderr)
	t.Logf("svclab cluster run's progress:\n%s", stderr.String())
	if err != nil {
		t.Fatalf("svclab cluster run: %v", err)
	}
	checkMerged(t, "svclab cluster run", stdout.Bytes())
	if left := apiLeftovers(t, cp); len(left) > 0 {
		t.Errorf("left in the API after the run: %v", left)
	}
	cells, _ := filepath.Glob(filepath.Join(out, "cells", "*"))
	if len(cells) != 4 {
		t.Fatalf("cells %v, want 4", cells)
	}
	var merged, mergeErr bytes.Buffer
	if err := runMerge(append([]string{"--format", "json"}, cells...), &merged, &mergeErr); err != nil {
		t.Fatalf("svclab merge: %v (%s)", err, mergeErr.String())
	}
	checkMerged(t, "svclab merge", merged.Bytes())
	merged.Reset()
	if err := runMerge(cells, &merged, &mergeErr); err != nil {
		t.Fatalf("svclab merge: %v (%s)", err, mergeErr.String())
	}
	t.Logf("svclab merge %s/cells/*:\n%s", out, merged.String())
}

// clusterImageEnv names the image (as podman knows it, e.g. svclab:latest
// after `make image`) the node agent runs the pods in with podman; unset,
// it runs them as local processes of a locally built svclab.
const clusterImageEnv = "SVCLAB_CLUSTER_IMAGE"

// startNodeAgent starts the node agent with one node per pool of itMatrix,
// running the pods in $SVCLAB_CLUSTER_IMAGE with podman, or their svclab
// as a locally built one; it stops at the test's end, when no mount or
// container of a pod may be left. It returns the agent's progress and the
// directory of the pods' logs.
func startNodeAgent(t *testing.T, cp *clustertest.ControlPlane) (*syncBuffer, string) {
	t.Helper()
	log, dir := &syncBuffer{}, t.TempDir()
	cfg := clustertest.AgentConfig{
		Pools: []clustertest.Pool{
			{Name: "a", Labels: map[string]string{"svclab.io/test-pool": "a"}, Nodes: 1},
			{Name: "b", Labels: map[string]string{"svclab.io/test-pool": "b"}, Nodes: 1},
		},
		Image:    os.Getenv(clusterImageEnv),
		Dir:      dir,
		Progress: log,
	}
	if cfg.Image == "" {
		cfg.Commands, cfg.Writable = map[string]string{"svclab": svclabBinary(t)}, filepath.Dir(cluster.CellDir)
	}
	t.Logf("the pods run %s", map[bool]string{true: "in image " + cfg.Image + " with podman", false: "as local processes (" + clusterImageEnv + " unset)"}[cfg.Image != ""])
	agent, err := clustertest.StartNodeAgent(context.Background(), cp, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		agent.Stop()
		if m := podMounts(t); len(m) > 0 {
			t.Errorf("a pod's mounts outlived it: %v", m)
		}
		if c := podContainers(t, cfg.Image); len(c) > 0 {
			t.Errorf("a pod's containers outlived it: %v", c)
		}
		if t.Failed() {
			t.Logf("node agent:\n%s", log.String())
		}
	})
	return log, dir
}

// syncBuffer is a bytes.Buffer the agent's goroutines write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClusterRunInterruptedEndToEnd is Ctrl-C (SIGINT to the test
// process, which svclab cluster run catches) once a cell's pod runs: the
// command exits 130 having deleted the Jobs and pods; the running pods got
// SIGTERM through their deletion (as from a kubelet) and their lab runs
// removed their namespaces.
func TestClusterRunInterruptedEndToEnd(t *testing.T) {
	cp := startControlPlane(t)
	agentLog, podDir := startNodeAgent(t, cp)
	done := make(chan error, 1)
	var stdout, stderr bytes.Buffer
	go func() {
		done <- runCluster(append([]string{"run", "--kubeconfig", cp.Kubeconfig, "--out", filepath.Join(t.TempDir(), "run")}, itMatrix...), &stdout, &stderr)
	}()
	// Ctrl-C once a pod's svclab run has named its lab (its signal handler
	// is in place then).
	for deadline := time.Now().Add(3 * time.Minute); len(labPrefixes(podDir)) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no pod's svclab run named its lab in 3 minutes; node agent:\n%s", agentLog.String())
		}
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("svclab cluster run did not end 3 minutes after SIGINT")
	}
	t.Logf("svclab cluster run's progress:\n%s\nnode agent:\n%s", stderr.String(), agentLog.String())
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 130 {
		t.Fatalf("svclab cluster run after SIGINT: %v, want exit 130", err)
	}
	if left := apiLeftovers(t, cp); len(left) > 0 {
		t.Errorf("left in the API after Ctrl-C: %v", left)
	}
	if !strings.Contains(agentLog.String(), "deleted: SIGTERM to pid") {
		t.Errorf("no running pod was deleted (and sent SIGTERM); node agent:\n%s", agentLog.String())
	}
	for _, prefix := range labPrefixes(podDir) {
		if ns := namespacesOf(t, prefix); len(ns) > 0 {
			t.Errorf("lab %s of a pod: its namespaces are left: %v", prefix, ns)
		}
	}
}

// labPrefixes are the lab runs the pods' logs under the node agent's
// directory name.
func labPrefixes(podDir string) []string {
	logs, _ := filepath.Glob(filepath.Join(podDir, "pods", "*", "*.log"))
	var prefixes []string
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if m := prefixRE.FindSubmatch(b); m != nil {
			prefixes = append(prefixes, string(m[1]))
		}
	}
	return prefixes
}

// podContainers are the podman containers of the node agent's pods that
// exist (none when the pods ran as local processes).
func podContainers(t *testing.T, image string) []string {
	t.Helper()
	if image == "" {
		return nil
	}
	out, err := exec.Command("podman", "ps", "-a", "--filter", "name=^svl-pod-", "--format", "{{.Names}}").Output()
	if err != nil {
		t.Errorf("podman ps: %v", err)
	}
	return strings.Fields(string(out))
}
