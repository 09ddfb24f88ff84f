//go:build linux && controlplane

package main

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	labcluster "github.com/svclab/svclab/lab/cluster"
	"github.com/svclab/svclab/sim/cluster"
)

// TestClusterAuditManifestsAcceptedByAPIServer: the ConfigMap of gzipped
// objects and the DaemonSet `svclab cluster audit` creates (built by the
// functions the command uses) are accepted by a real kube-apiserver with
// strict field validation, as a server-side dry run and then for real, and
// the audit runner's Cleanup removes both. The project's control plane has
// no DaemonSet controller: no pod is created, and the audit's pods are
// tested only against the fake clientset (lab/cluster).
func TestClusterAuditManifestsAcceptedByAPIServer(t *testing.T) {
	cp := startControlPlane(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	objects, err := os.ReadFile(auditTestCluster)
	if err != nil {
		t.Fatal(err)
	}
	o := cluster.AuditOptions{Image: "svclab:test", Namespace: itNamespace, RunID: "it-audit", Mode: "nftables",
		NodeSelector: map[string]string{"svclab.io/test-pool": "a"}}
	cm, err := cluster.AuditConfigMap(objects, o)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := cluster.AuditDaemonSet(o)
	if err != nil {
		t.Fatal(err)
	}
	create := func(client rest.Interface, resource string, obj any, dryRun bool) error {
		body, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		req := client.Post().Namespace(itNamespace).Resource(resource).Param("fieldValidation", "Strict").Body(body)
		if dryRun {
			req = req.Param("dryRun", "All")
		}
		return req.Do(ctx).Error()
	}
	for _, dryRun := range []bool{true, false} {
		if err := create(cp.Client.CoreV1().RESTClient(), "configmaps", cm, dryRun); err != nil {
			t.Fatalf("ConfigMap %s (dry run %v): %v", cm.Name, dryRun, err)
		}
		if err := create(cp.Client.AppsV1().RESTClient(), "daemonsets", ds, dryRun); err != nil {
			t.Fatalf("DaemonSet %s (dry run %v): %v", ds.Name, dryRun, err)
		}
	}
	stored, err := cp.Client.AppsV1().DaemonSets(itNamespace).Get(ctx, ds.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := stored.Spec.Template.Spec
	if !spec.HostNetwork || !*spec.Containers[0].SecurityContext.Privileged || spec.NodeSelector["svclab.io/test-pool"] != "a" {
		t.Errorf("stored DaemonSet: hostNetwork %v, privileged %v, node selector %v", spec.HostNetwork, *spec.Containers[0].SecurityContext.Privileged, spec.NodeSelector)
	}
	storedCM, err := cp.Client.CoreV1().ConfigMaps(itNamespace).Get(ctx, cm.Name, metav1.GetOptions{})
	if err != nil || len(storedCM.BinaryData[cluster.ObjectsKey]) != len(cm.BinaryData[cluster.ObjectsKey]) {
		t.Fatalf("stored ConfigMap: %v, %d bytes of objects, want %d", err, len(storedCM.BinaryData[cluster.ObjectsKey]), len(cm.BinaryData[cluster.ObjectsKey]))
	}
	r := &labcluster.AuditRunner{Target: labcluster.Target{Client: cp.Client, Namespace: itNamespace, RunID: o.RunID, Poll: 200 * time.Millisecond}}
	if err := r.Cleanup(); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	selector := metav1.ListOptions{LabelSelector: cluster.RunLabel + "=" + o.RunID}
	dss, err := cp.Client.AppsV1().DaemonSets(itNamespace).List(ctx, selector)
	if err != nil {
		t.Fatal(err)
	}
	cms, err := cp.Client.CoreV1().ConfigMaps(itNamespace).List(ctx, selector)
	if err != nil {
		t.Fatal(err)
	}
	if len(dss.Items)+len(cms.Items) > 0 {
		t.Errorf("left after Cleanup: %d DaemonSets, %d ConfigMaps", len(dss.Items), len(cms.Items))
	}
}
