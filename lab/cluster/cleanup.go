package cluster

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	simcluster "github.com/svclab/svclab/sim/cluster"
)

// DefaultCleanupTimeout bounds Cleanup: a pod's kubelet stops its
// container (the lab inside removes itself on SIGTERM) before the pod goes.
const DefaultCleanupTimeout = 2 * time.Minute

// Cleanup deletes the run's Jobs and pods (found by the run label, so it
// also removes what an earlier, killed command left) and waits until no
// pod of the run is left. It uses its own context: it runs after Ctrl-C.
func (r *Runner) Cleanup() error {
	return cleanupRun(r.Client, r.Namespace, r.RunID, r.CleanupTimeout, r.poll(), r.Progress, []collection{jobs, pods})
}

// collection is a kind of object a run creates, deleted and counted by the
// run label.
type collection struct {
	name   string
	delete func(context.Context, kubernetes.Interface, string, metav1.ListOptions) error
	count  func(context.Context, kubernetes.Interface, string, metav1.ListOptions) (int, error)
}

// objectsAPI is the part of a typed client of one resource cleanup uses.
type objectsAPI[L runtime.Object] interface {
	List(context.Context, metav1.ListOptions) (L, error)
	DeleteCollection(context.Context, metav1.DeleteOptions, metav1.ListOptions) error
}

func collectionOf[L runtime.Object](name string, api func(kubernetes.Interface, string) objectsAPI[L], opts metav1.DeleteOptions) collection {
	return collection{name,
		func(ctx context.Context, c kubernetes.Interface, ns string, sel metav1.ListOptions) error {
			return api(c, ns).DeleteCollection(ctx, opts, sel)
		},
		func(ctx context.Context, c kubernetes.Interface, ns string, sel metav1.ListOptions) (int, error) {
			l, err := api(c, ns).List(ctx, sel)
			if err != nil {
				return 0, err
			}
			return meta.LenList(l), nil
		}}
}

// The collections runs create. Pods are deleted themselves, without
// waiting for the garbage collector.
var (
	background = metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}
	jobs       = collectionOf("Jobs", func(c kubernetes.Interface, ns string) objectsAPI[*batchv1.JobList] { return c.BatchV1().Jobs(ns) }, background)
	daemonSets = collectionOf("DaemonSets", func(c kubernetes.Interface, ns string) objectsAPI[*appsv1.DaemonSetList] {
		return c.AppsV1().DaemonSets(ns)
	}, background)
	pods       = collectionOf("pods", func(c kubernetes.Interface, ns string) objectsAPI[*corev1.PodList] { return c.CoreV1().Pods(ns) }, metav1.DeleteOptions{})
	configMaps = collectionOf("ConfigMaps", func(c kubernetes.Interface, ns string) objectsAPI[*corev1.ConfigMapList] {
		return c.CoreV1().ConfigMaps(ns)
	}, metav1.DeleteOptions{})
)

// cleanupRun deletes the run's objects of each collection, in order, and
// waits until none is left (a pod goes once its kubelet stopped it).
func cleanupRun(c kubernetes.Interface, ns, runID string, timeout, poll time.Duration, progress io.Writer, what []collection) error {
	if timeout <= 0 {
		timeout = DefaultCleanupTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	sel := metav1.ListOptions{LabelSelector: simcluster.RunLabel + "=" + runID}
	names := make([]string, len(what))
	for i, w := range what {
		names[i] = w.name
		if err := w.delete(ctx, c, ns, sel); err != nil {
			return fmt.Errorf("delete the %s of run %s: %w", w.name, runID, err)
		}
	}
	err := wait.PollUntilContextCancel(ctx, min(poll, time.Second), true, func(ctx context.Context) (bool, error) {
		for _, w := range what {
			if n, err := w.count(ctx, c, ns, sel); err != nil || n > 0 {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		all := strings.ToLower(strings.Join(names, ","))
		return fmt.Errorf("run %s: %s still there after %v (kubectl delete %s -n %s -l %s=%s): %w",
			runID, strings.Join(names, ", "), timeout, all, ns, simcluster.RunLabel, runID, err)
	}
	progressf(progress, "cluster", "deleted the %s of run %s", andList(names), runID)
	return nil
}

// andList is "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
