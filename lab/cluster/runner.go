package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	simcluster "github.com/svclab/svclab/sim/cluster"
)

// LogSource reads a finished pod's log.
type LogSource interface {
	Logs(ctx context.Context, pod *corev1.Pod) (io.ReadCloser, error)
}

// APILogs reads logs through the API server (which asks the pod's kubelet).
type APILogs struct{ Client kubernetes.Interface }

// Logs streams the svclab container's log.
func (a APILogs) Logs(ctx context.Context, pod *corev1.Pod) (io.ReadCloser, error) {
	return a.Client.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Container: "svclab"}).Stream(ctx)
}

// Target is where a runner works and how: the API server, the namespace
// and the run (its id labels everything it creates).
type Target struct {
	Client    kubernetes.Interface
	Namespace string
	RunID     string
	// Logs defaults to APILogs.
	Logs LogSource
	// Progress gets a line whenever the counts change.
	Progress io.Writer
	// Poll is how often the objects and their pods are read (default 2s).
	Poll time.Duration
	// CleanupTimeout bounds Cleanup (default DefaultCleanupTimeout).
	CleanupTimeout time.Duration
}

// Runner runs one cluster run's Jobs.
type Runner struct {
	Target
}

// Outcome is what a run collected: each cell's directory by label, and the
// cells that failed: a pod of theirs failed and none succeeded (a retried
// cell that then succeeded is not one; its directory is the successful
// attempt's). A failed cell's directory is collected too when its log held
// an archive.
type Outcome struct {
	Cells  map[string]string
	Failed []string
}

// ErrJobFailed says a Job ended Failed (an index exhausted its retries, or
// the deadline passed).
var ErrJobFailed = errors.New("a cluster run Job failed")

// Run creates the Jobs, waits for them, collects cells into outDir/cells
// and always deletes the Jobs and their pods before it returns.
func (r *Runner) Run(ctx context.Context, jobs []*batchv1.Job, outDir string) (out Outcome, err error) {
	defer func() {
		if cerr := r.Cleanup(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	for _, j := range jobs {
		if _, err := r.Client.BatchV1().Jobs(r.Namespace).Create(ctx, j, metav1.CreateOptions{}); err != nil {
			return out, fmt.Errorf("create Job %s/%s: %w", r.Namespace, j.Name, err)
		}
		r.logf("created Job %s/%s (%d cells)", r.Namespace, j.Name, *j.Spec.Completions)
	}
	return r.wait(ctx, jobs, outDir)
}

func (r *Runner) wait(ctx context.Context, jobs []*batchv1.Job, outDir string) (Outcome, error) {
	c := &collector{out: Outcome{Cells: map[string]string{}}, seen: map[string]bool{}, succeeded: map[string]bool{}, failed: map[string]bool{}}
	last := map[string]string{}
	tick := time.NewTicker(r.poll())
	defer tick.Stop()
	for {
		// Checked first: once the ticker is due too, select picks at random.
		if err := ctx.Err(); err != nil {
			return c.outcome(), err
		}
		// The Jobs first, then their pods: a Job that is finished here had
		// all its pods finished before, so the list below holds them all.
		done, failed, err := r.jobStates(ctx, jobs, last)
		if err != nil {
			return c.outcome(), err
		}
		pods, err := r.Client.CoreV1().Pods(r.Namespace).List(ctx, metav1.ListOptions{LabelSelector: simcluster.RunLabel + "=" + r.RunID})
		if err != nil {
			return c.outcome(), fmt.Errorf("list pods of run %s: %w", r.RunID, err)
		}
		for i := range pods.Items {
			r.collect(ctx, &pods.Items[i], jobs, outDir, c)
		}
		if done == len(jobs) {
			out := c.outcome()
			if failed > 0 {
				return out, fmt.Errorf("%w: %d of %d Jobs (cells %v)", ErrJobFailed, failed, len(jobs), out.Failed)
			}
			return out, nil
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}

// collector keeps what the finished pods gave, by cell.
type collector struct {
	out Outcome
	// seen holds the pods already collected, by name.
	seen map[string]bool
	// succeeded and failed hold the cells with a pod in that phase.
	succeeded, failed map[string]bool
}

func (c *collector) outcome() Outcome {
	out := Outcome{Cells: c.out.Cells}
	for label := range c.failed {
		if !c.succeeded[label] {
			out.Failed = append(out.Failed, label)
		}
	}
	sort.Strings(out.Failed)
	return out
}

// jobStates counts finished and failed Jobs and prints each Job's counts
// when they changed since last.
func (r *Runner) jobStates(ctx context.Context, jobs []*batchv1.Job, last map[string]string) (done, failed int, err error) {
	for _, j := range jobs {
		cur, err := r.Client.BatchV1().Jobs(r.Namespace).Get(ctx, j.Name, metav1.GetOptions{})
		if err != nil {
			return 0, 0, fmt.Errorf("get Job %s/%s: %w", r.Namespace, j.Name, err)
		}
		s := cur.Status
		line := fmt.Sprintf("%s: %d/%d cells succeeded, %d failed, %d running", j.Labels[simcluster.PoolLabel], s.Succeeded, *j.Spec.Completions, s.Failed, s.Active)
		if line != last[j.Name] {
			last[j.Name] = line
			r.logf("%s", line)
		}
		for _, c := range s.Conditions {
			if c.Status != corev1.ConditionTrue {
				continue
			}
			switch c.Type {
			case batchv1.JobComplete:
				done++
			case batchv1.JobFailed:
				done, failed = done+1, failed+1
			}
		}
	}
	return done, failed, nil
}

// collect unpacks a finished pod's cell from its log, once per pod. A
// failed attempt never replaces a cell a successful one gave.
func (r *Runner) collect(ctx context.Context, p *corev1.Pod, jobs []*batchv1.Job, outDir string, c *collector) {
	if c.seen[p.Name] || (p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed) {
		return
	}
	c.seen[p.Name] = true
	cell, err := cellOf(p, jobs)
	if err != nil {
		r.logf("pod %s: %v", p.Name, err)
		return
	}
	label := cell.Label()
	if p.Status.Phase == corev1.PodFailed {
		c.failed[label] = true
		if c.succeeded[label] {
			return
		}
	} else {
		c.succeeded[label] = true
	}
	dir := filepath.Join(outDir, "cells", label)
	if err := r.unpack(ctx, p, dir); err != nil {
		r.logf("cell %s (pod %s, %s): %v", label, p.Name, p.Status.Phase, err)
		return
	}
	c.out.Cells[label] = dir
	r.logf("cell %s (pod %s on %s, %s) -> %s", label, p.Name, p.Spec.NodeName, p.Status.Phase, dir)
}

func (r *Runner) unpack(ctx context.Context, p *corev1.Pod, dir string) error {
	src := r.Logs
	if src == nil {
		src = APILogs{Client: r.Client}
	}
	rc, err := src.Logs(ctx, p)
	if err != nil {
		return fmt.Errorf("read the log: %w", err)
	}
	defer rc.Close()
	// A retried index's archive replaces its earlier attempt's directory,
	// but only once it unpacked whole.
	tmp := dir + ".partial"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := simcluster.Unpack(rc, tmp); err != nil {
		return errors.Join(err, os.RemoveAll(tmp))
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// cellOf finds the pod's cell: its Job's cells, by the pod's index.
func cellOf(p *corev1.Pod, jobs []*batchv1.Job) (simcluster.Cell, error) {
	index := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	pool := p.Labels[simcluster.PoolLabel]
	for _, j := range jobs {
		if j.Labels[simcluster.PoolLabel] != pool {
			continue
		}
		for _, e := range j.Spec.Template.Spec.Containers[0].Env {
			if e.Name == simcluster.CellsEnv {
				return simcluster.CellFor(e.Value, index)
			}
		}
	}
	return simcluster.Cell{}, fmt.Errorf("no Job of pool %q has index %q", pool, index)
}

func (r *Runner) logf(format string, args ...any) { progressf(r.Progress, "cluster", format, args...) }

// poll is how often the runner reads its objects (default 2s).
func (t *Target) poll() time.Duration {
	if t.Poll > 0 {
		return t.Poll
	}
	return 2 * time.Second
}

// progressf writes a progress line, "WHO: …", to w (if any).
func progressf(w io.Writer, who, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, who+": "+format+"\n", args...)
	}
}
