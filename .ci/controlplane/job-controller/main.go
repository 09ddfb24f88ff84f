// Command job-controller runs Kubernetes' Job controller alone: the code
// kube-controller-manager runs for Jobs (k8s.io/kubernetes/pkg/controller/job,
// at the version of ../go.mod), started the way kube-controller-manager's
// newJobController starts it, without the other controllers, leader election
// or cloud providers that make kube-controller-manager a much larger build.
// svclab's control-plane integration test runs it against kube-apiserver: it
// creates each index's pod of a Job, retries failed indexes up to
// backoffLimitPerIndex and writes the Job's status and conditions.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/job"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the API server's kubeconfig")
	workers := flag.Int("concurrent-job-syncs", 5, "Jobs synced at once (kube-controller-manager's default)")
	klog.InitFlags(nil)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "job-controller:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig string, workers int) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("kubeconfig %s: %w", kubeconfig, err)
	}
	factory := informers.NewSharedInformerFactory(client, 12*time.Hour)
	// The WorkloadWithJob feature gate is off by default: no Workload or
	// PodGroup informers, as in kube-controller-manager.
	jc, err := job.NewController(ctx, client, factory.Core().V1().Pods(), factory.Batch().V1().Jobs(), nil, nil)
	if err != nil {
		return fmt.Errorf("creating the Job controller: %w", err)
	}
	factory.Start(ctx.Done())
	jc.Run(ctx, workers)
	factory.Shutdown()
	return nil
}
