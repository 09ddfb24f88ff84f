package cluster

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	simcluster "github.com/svclab/svclab/sim/cluster"
)

// ClusterObjects lists the cluster's Services, EndpointSlices and Nodes
// (all namespaces), as `kubectl get services,endpointslices,nodes -A -o
// yaml` would, and encodes them as the List `svclab audit --objects` reads.
func ClusterObjects(ctx context.Context, c kubernetes.Interface) ([]byte, error) {
	all := metav1.ListOptions{}
	svcs, err := c.CoreV1().Services(metav1.NamespaceAll).List(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("list Services: %w", err)
	}
	slices, err := c.DiscoveryV1().EndpointSlices(metav1.NamespaceAll).List(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("list EndpointSlices: %w", err)
	}
	nodes, err := c.CoreV1().Nodes().List(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("list Nodes: %w", err)
	}
	return simcluster.ObjectsList(svcs.Items, slices.Items, nodes.Items)
}
