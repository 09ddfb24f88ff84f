package cluster

import (
	"bytes"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svclab/svclab/sim/objects"
)

// lastApplied is kubectl's copy of an applied object: often the largest
// part of a Service, and nothing kube-proxy reads.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// ObjectsList encodes the objects as the kubectl List `svclab audit
// --objects` reads, each with its kind (the API server's lists leave it
// out) and without managedFields and kubectl's last-applied copy, which
// kube-proxy does not read and would only fill the ConfigMap.
func ObjectsList(svcs []corev1.Service, slices []discoveryv1.EndpointSlice, nodes []corev1.Node) ([]byte, error) {
	items := make([]any, 0, len(svcs)+len(slices)+len(nodes))
	for i := range svcs {
		s := svcs[i].DeepCopy()
		s.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}
		trim(&s.ObjectMeta)
		items = append(items, s)
	}
	for i := range slices {
		s := slices[i].DeepCopy()
		s.TypeMeta = metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"}
		trim(&s.ObjectMeta)
		items = append(items, s)
	}
	for i := range nodes {
		n := nodes[i].DeepCopy()
		n.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
		trim(&n.ObjectMeta)
		// A Node's status is mostly images and conditions; kube-proxy
		// reads its addresses.
		n.Status = corev1.NodeStatus{Addresses: n.Status.Addresses}
		items = append(items, n)
	}
	var b bytes.Buffer
	if err := objects.Encode(&b, items); err != nil {
		return nil, fmt.Errorf("the cluster's objects: %w", err)
	}
	return b.Bytes(), nil
}

func trim(m *metav1.ObjectMeta) {
	m.ManagedFields = nil
	delete(m.Annotations, lastApplied)
}
