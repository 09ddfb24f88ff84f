package cluster

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	simcluster "github.com/svclab/svclab/sim/cluster"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
)

const testRunID = "r1"

// testMatrix is two pools of two cells each.
func testMatrix() simcluster.Matrix {
	return simcluster.Matrix{
		Scenarios:  []string{"split-2"},
		Dataplanes: []string{string(dataplane.IPTablesNFT), string(dataplane.NFTables)},
		Versions:   []string{string(render.LatestKubeProxy)},
		Pools: []simcluster.Pool{
			{Name: "a", Selector: map[string]string{"pool": "gen5"}},
			{Name: "b", Selector: map[string]string{"pool": "gen7", "kubernetes.io/os": "linux"}},
		},
	}
}

// label is the cell label of a pool's index in testMatrix.
func label(pool string, index int) string {
	return testMatrix().Cells(pool)[index].Label()
}

// at names a cell of testMatrix.
type at struct {
	pool  string
	index int
}

func TestRunnerAgainstFakeCluster(t *testing.T) {
	for _, tc := range []struct {
		name      string
		script    map[string][]attempt
		retries   int32
		cancelAt  int
		createErr string // this Job's create is refused
		wantErr   error
		// wantCells: each collected cell's attempt (cell.json); nil when
		// the run never got to collect.
		wantCells  map[at]int
		wantFailed []string
		wantLines  []string
	}{{
		name:      "every cell succeeds",
		retries:   1,
		wantCells: map[at]int{{"a", 0}: 0, {"a", 1}: 0, {"b", 0}: 0, {"b", 1}: 0},
		wantLines: []string{
			"cluster: created Job default/svclab-r1-a (2 cells)",
			"cluster: a: 0/2 cells succeeded, 0 failed, 2 running",
			"cluster: a: 2/2 cells succeeded, 0 failed, 0 running",
			"cluster: b: 2/2 cells succeeded, 0 failed, 0 running",
			"cluster: cell " + label("b", 1) + " (pod svclab-r1-b-1-a0 on b-node-1, Succeeded) -> ",
			"cluster: deleted the Jobs and pods of run r1",
		},
	}, {
		name:      "a pod retried, then its cell succeeds",
		script:    map[string][]attempt{"a/1": {fails, succeeds}},
		retries:   1,
		wantCells: map[at]int{{"a", 0}: 0, {"a", 1}: 1, {"b", 0}: 0, {"b", 1}: 0},
		wantLines: []string{
			"cluster: a: 2/2 cells succeeded, 1 failed, 0 running",
			"cluster: cell " + label("a", 1) + " (pod svclab-r1-a-1-a0 on a-node-1, Failed) -> ",
			"cluster: cell " + label("a", 1) + " (pod svclab-r1-a-1-a1 on a-node-1, Succeeded) -> ",
		},
	}, {
		name:       "a cell fails on every attempt: the Job fails, the others are collected",
		script:     map[string][]attempt{"b/0": {fails, dies}},
		retries:    1,
		wantErr:    ErrJobFailed,
		wantCells:  map[at]int{{"a", 0}: 0, {"a", 1}: 0, {"b", 0}: 0, {"b", 1}: 0},
		wantFailed: []string{label("b", 0)},
		wantLines: []string{
			"cluster: b: 1/2 cells succeeded, 2 failed, 0 running",
			"cluster: cell " + label("b", 0) + " (pod svclab-r1-b-0-a1, Failed): no complete cell archive in the log",
		},
	}, {
		name:       "no retries: one failed pod fails its cell",
		script:     map[string][]attempt{"a/0": {dies}},
		retries:    0,
		wantErr:    ErrJobFailed,
		wantCells:  map[at]int{{"a", 1}: 0, {"b", 0}: 0, {"b", 1}: 0},
		wantFailed: []string{label("a", 0)},
		wantLines:  []string{"cluster: a: 1/2 cells succeeded, 1 failed, 0 running"},
	}, {
		name:      "Ctrl-C while the pods run: terminating pods are waited for",
		retries:   1,
		cancelAt:  4,
		wantErr:   context.Canceled,
		wantLines: []string{"cluster: a: 0/2 cells succeeded, 0 failed, 2 running", "cluster: deleted the Jobs and pods of run r1"},
	}, {
		name:      "the second Job is refused: the first is deleted",
		retries:   1,
		createErr: simcluster.JobName(testRunID, "b"),
		wantErr:   errRefused,
		wantLines: []string{"cluster: created Job default/svclab-r1-a (2 cells)", "cluster: deleted the Jobs and pods of run r1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeCluster(t, tc.script)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			f.cancel, f.cancelAt = cancel, tc.cancelAt
			if tc.createErr != "" {
				f.createErr[tc.createErr] = errRefused
			}
			jobs, err := simcluster.Jobs(testMatrix(), simcluster.JobOptions{Image: "svclab:test", Namespace: "default", RunID: testRunID, Retries: tc.retries})
			if err != nil {
				t.Fatal(err)
			}
			var progress bytes.Buffer
			r := &Runner{Target{Client: f.client, Namespace: "default", RunID: testRunID, Logs: f, Progress: &progress, Poll: 1,
				CleanupTimeout: 10 * time.Second}} // only reached when Cleanup fails
			out := t.TempDir()
			got, err := r.Run(ctx, jobs, out)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Run() error = %v, want %v\nprogress:\n%s", err, tc.wantErr, progress.String())
			}
			if left := f.left(); len(left) > 0 {
				t.Errorf("left in the API after Run: %v", left)
			}
			checkCreated(t, f.createdJobs(), testMatrix(), tc.retries, tc.createErr)
			checkCells(t, got, tc.wantCells, out)
			if !reflect.DeepEqual(got.Failed, tc.wantFailed) {
				t.Errorf("Outcome.Failed = %v, want %v", got.Failed, tc.wantFailed)
			}
			for _, l := range tc.wantLines {
				if !strings.Contains(progress.String(), l) {
					t.Errorf("progress lacks %q; it is:\n%s", l, progress.String())
				}
			}
		})
	}
}

var errRefused = apierrors.NewForbidden(batchv1.Resource("jobs"), "svclab-r1-b", errors.New("quota exceeded"))

// checkCreated checks what reached the API server: one Indexed Job per
// pool, pinned to the pool, one index per cell, the retries per index,
// privileged pods that never restart in place.
func checkCreated(t *testing.T, created []*batchv1.Job, m simcluster.Matrix, retries int32, refused string) {
	t.Helper()
	want := len(m.Pools)
	if refused != "" {
		want = 1
	}
	if len(created) != want {
		t.Fatalf("%d Jobs created, want %d", len(created), want)
	}
	for i, j := range created {
		p := m.Pools[i]
		spec, pod := j.Spec, j.Spec.Template.Spec
		c := pod.Containers[0]
		for _, check := range []struct {
			what      string
			got, want any
		}{
			{"name", j.Name, simcluster.JobName(testRunID, p.Name)},
			{"namespace", j.Namespace, "default"},
			{"run label", j.Labels[simcluster.RunLabel], testRunID},
			{"pod run label", j.Spec.Template.Labels[simcluster.RunLabel], testRunID},
			{"nodeSelector", pod.NodeSelector, p.Selector},
			{"completionMode", *spec.CompletionMode, batchv1.IndexedCompletion},
			{"completions", *spec.Completions, int32(len(m.Cells(p.Name)))},
			{"backoffLimitPerIndex", *spec.BackoffLimitPerIndex, retries},
			{"restartPolicy", pod.RestartPolicy, corev1.RestartPolicyNever},
			{"privileged", c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged, true},
			{"container", c.Name, "svclab"},
			{"command", c.Command, []string{"svclab", "cluster", "cell"}},
		} {
			if !reflect.DeepEqual(check.got, check.want) {
				t.Errorf("Job %d %s = %v, want %v", i, check.what, check.got, check.want)
			}
		}
	}
}

// checkCells checks each collected cell's directory holds the archive of
// the wanted attempt, and nothing else was collected.
func checkCells(t *testing.T, got Outcome, want map[at]int, out string) {
	t.Helper()
	if len(got.Cells) != len(want) {
		t.Errorf("collected %d cells %v, want %d", len(got.Cells), got.Cells, len(want))
	}
	for c, attempt := range want {
		lbl := label(c.pool, c.index)
		dir, ok := got.Cells[lbl]
		if !ok {
			t.Errorf("cell %s not collected", lbl)
			continue
		}
		if dir != filepath.Join(out, "cells", lbl) {
			t.Errorf("cell %s in %s, want it in OUT/cells", lbl, dir)
		}
		b, err := os.ReadFile(filepath.Join(dir, "cell.json"))
		if err != nil {
			t.Errorf("cell %s: %v", lbl, err)
			continue
		}
		if w := cellJSON(c.pool, c.index, attempt); string(b) != w {
			t.Errorf("cell %s holds %s, want %s", lbl, b, w)
		}
	}
	partial, _ := filepath.Glob(filepath.Join(out, "cells", "*.partial"))
	if len(partial) > 0 {
		t.Errorf("partial archives left: %v", partial)
	}
}

// TestAPILogsReadsTheSvclabContainer checks the real LogSource asks the
// API server for the svclab container's log and returns its bytes whole.
func TestAPILogsReadsTheSvclabContainer(t *testing.T) {
	want := "progress\n-----BEGIN SVCLAB CELL-----\nAAAA\n-----END SVCLAB CELL-----\n"
	client := fake.NewClientset()
	var asked *corev1.PodLogOptions
	client.PrependReactor("get", "pods/log", func(a k8stesting.Action) (bool, runtime.Object, error) {
		asked = a.(k8stesting.GenericAction).GetValue().(*corev1.PodLogOptions)
		return true, &runtime.Unknown{Raw: []byte(want)}, nil
	})
	pod := &corev1.Pod{}
	pod.Name, pod.Namespace = "svclab-r1-a-0-xyz", "default"
	rc, err := APILogs{Client: client}.Logs(context.Background(), pod)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("log = %q, want %q", got, want)
	}
	if asked == nil || asked.Container != "svclab" {
		t.Errorf("log options = %+v, want container svclab", asked)
	}
}
