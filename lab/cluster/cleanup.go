package cluster

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	simcluster "github.com/svclab/svclab/sim/cluster"
)

// DefaultCleanupTimeout bounds Cleanup: a pod's kubelet stops its
// container (the lab inside removes itself on SIGTERM) before the pod goes.
const DefaultCleanupTimeout = 2 * time.Minute

// Cleanup deletes the run's Jobs and pods (found by the run label, so it
// also removes what an earlier, killed command left) and waits until no
// pod of the run is left. It uses its own context: it runs after Ctrl-C.
func (r *Runner) Cleanup() error {
	timeout := r.CleanupTimeout
	if timeout <= 0 {
		timeout = DefaultCleanupTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	sel := metav1.ListOptions{LabelSelector: simcluster.RunLabel + "=" + r.RunID}
	bg := metav1.DeletePropagationBackground
	if err := r.Client.BatchV1().Jobs(r.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: &bg}, sel); err != nil {
		return fmt.Errorf("delete the Jobs of run %s: %w", r.RunID, err)
	}
	// Without waiting for the garbage collector: the pods go now.
	if err := r.Client.CoreV1().Pods(r.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
		return fmt.Errorf("delete the pods of run %s: %w", r.RunID, err)
	}
	err := wait.PollUntilContextCancel(ctx, min(r.poll(), time.Second), true, func(ctx context.Context) (bool, error) {
		pods, err := r.Client.CoreV1().Pods(r.Namespace).List(ctx, sel)
		if err != nil {
			return false, err
		}
		jobs, err := r.Client.BatchV1().Jobs(r.Namespace).List(ctx, sel)
		if err != nil {
			return false, err
		}
		return len(pods.Items) == 0 && len(jobs.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("run %s: Jobs or pods still there after %v (kubectl delete jobs,pods -n %s -l %s=%s): %w",
			r.RunID, timeout, r.Namespace, simcluster.RunLabel, r.RunID, err)
	}
	r.logf("deleted the Jobs and pods of run %s", r.RunID)
	return nil
}
