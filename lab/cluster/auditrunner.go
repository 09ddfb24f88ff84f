package cluster

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simcluster "github.com/svclab/svclab/sim/cluster"
)

// DefaultAuditTimeout bounds the wait for every node's report: the image
// is pulled on each node, then the audit takes seconds.
const DefaultAuditTimeout = 10 * time.Minute

// AuditRunner runs one `svclab cluster audit`: it creates the ConfigMap of
// objects and the DaemonSet (sim/cluster builds both), reads each node's
// report once from its pod's log, and deletes the DaemonSet, its pods and
// the ConfigMap on success, failure, timeout and cancellation.
type AuditRunner struct {
	Target
	// Timeout bounds the wait for the reports (default DefaultAuditTimeout).
	Timeout time.Duration

	// expire, when set, stands in for Timeout's timer (tests).
	expire <-chan time.Time
}

// ErrNotReported says some nodes' pods printed no report in time; the
// results name them and say why.
var ErrNotReported = errors.New("nodes did not report")

// ErrNoNodes says the DaemonSet selects no node.
var ErrNoNodes = errors.New("the DaemonSet runs on no node")

// Run creates cm and ds, waits for every scheduled node's report and
// always deletes what it created before it returns. The results are by
// node: its report, or why it gave none.
func (r *AuditRunner) Run(ctx context.Context, cm *corev1.ConfigMap, ds *appsv1.DaemonSet) (res []simcluster.NodeResult, err error) {
	defer func() {
		if cerr := r.Cleanup(); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	if _, err := r.Client.CoreV1().ConfigMaps(r.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create ConfigMap %s/%s: %w", r.Namespace, cm.Name, err)
	}
	if _, err := r.Client.AppsV1().DaemonSets(r.Namespace).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create DaemonSet %s/%s: %w", r.Namespace, ds.Name, err)
	}
	r.logf("created ConfigMap %s/%s and DaemonSet %s/%s", r.Namespace, cm.Name, r.Namespace, ds.Name)
	return r.wait(ctx, ds.Name)
}

// Cleanup deletes the run's DaemonSet, pods and ConfigMap (by the run
// label) and waits until they are gone.
func (r *AuditRunner) Cleanup() error {
	return cleanupRun(r.Client, r.Namespace, r.RunID, r.CleanupTimeout, r.poll(), r.Progress, []collection{daemonSets, pods, configMaps})
}

func (r *AuditRunner) wait(ctx context.Context, name string) ([]simcluster.NodeResult, error) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultAuditTimeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	expire := deadline.C
	if r.expire != nil {
		expire = r.expire
	}
	tick := time.NewTicker(r.poll())
	defer tick.Stop()
	w := &reports{byNode: map[string]simcluster.NodeResult{}, logErr: map[string]error{}}
	last := ""
	for {
		if err := ctx.Err(); err != nil {
			return w.results(), err
		}
		desired, observed, pods, err := r.state(ctx, name)
		if err != nil {
			return w.results(), err
		}
		for i := range pods {
			r.read(ctx, &pods[i], w)
		}
		if line := fmt.Sprintf("%d of %d nodes reported", len(w.byNode), desired); observed && line != last {
			last = line
			r.logf("%s", line)
		}
		switch {
		case observed && desired == 0:
			return nil, fmt.Errorf("%w: no node matches its node selector", ErrNoNodes)
		case observed && len(w.byNode) >= desired:
			return w.results(), nil
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		case <-expire:
			return w.timedOut(pods, desired), fmt.Errorf("%w within %v: %s", ErrNotReported, timeout, strings.Join(w.missing(pods, desired), "; "))
		}
	}
}

// state reads the DaemonSet's status (the nodes it should run on, once
// its controller saw it) and its pods.
func (r *AuditRunner) state(ctx context.Context, name string) (desired int, observed bool, pods []corev1.Pod, err error) {
	ds, err := r.Client.AppsV1().DaemonSets(r.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return 0, false, nil, fmt.Errorf("get DaemonSet %s/%s: %w", r.Namespace, name, err)
	}
	observed = ds.Status.ObservedGeneration > 0 && ds.Status.ObservedGeneration >= ds.Generation
	list, err := r.Client.CoreV1().Pods(r.Namespace).List(ctx, metav1.ListOptions{LabelSelector: simcluster.RunLabel + "=" + r.RunID})
	if err != nil {
		return 0, false, nil, fmt.Errorf("list pods of DaemonSet %s/%s: %w", r.Namespace, name, err)
	}
	return int(ds.Status.DesiredNumberScheduled), observed, list.Items, nil
}

// reports holds the reports read so far, by node, and the last error
// reading each pod's log.
type reports struct {
	byNode map[string]simcluster.NodeResult
	logErr map[string]error
}

func (w *reports) results() []simcluster.NodeResult {
	out := make([]simcluster.NodeResult, 0, len(w.byNode))
	for _, n := range w.byNode {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out
}

// read reads a started pod's log until it holds the node's report; once
// it did, the pod is not read again.
func (r *AuditRunner) read(ctx context.Context, p *corev1.Pod, w *reports) {
	node := podNode(p)
	if _, done := w.byNode[node]; done || node == "" || p.Status.Phase == corev1.PodPending || p.Status.Phase == "" {
		return
	}
	src := r.Logs
	if src == nil {
		src = APILogs{Client: r.Client}
	}
	rc, err := src.Logs(ctx, p)
	if err != nil {
		w.logErr[p.Name] = err
		return
	}
	defer rc.Close()
	a, err := simcluster.ReadNodeAudit(rc)
	if err != nil {
		w.logErr[p.Name] = err
		return
	}
	if a.Node == "" {
		a.Node = node
	}
	w.byNode[node] = simcluster.NodeResult{Node: node, Pod: p.Name, Audit: &a}
	r.logf("node %s (pod %s): %s", node, p.Name, w.byNode[node].Verdict())
}

func (r *AuditRunner) logf(format string, args ...any) {
	progressf(r.Progress, "cluster audit", format, args...)
}
