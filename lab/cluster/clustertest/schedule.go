package clustertest

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// bind stands in for the scheduler for one unbound pod: the first of the
// agent's nodes (by name) that its nodeSelector picks and that no running
// pod excludes by the pod's required anti-affinity gets it, through the
// pods/binding subresource as kube-scheduler binds. No node fitting: the
// pod waits (a later round retries). Resources, taints, affinity and
// spreading are not considered: svclab's Jobs use none but a toleration of
// every taint.
func (a *NodeAgent) bind(ctx context.Context, p *corev1.Pod, all []corev1.Pod) error {
	if p.Spec.Affinity != nil && (p.Spec.Affinity.NodeAffinity != nil || p.Spec.Affinity.PodAffinity != nil) {
		return fmt.Errorf("pod %s/%s: node or pod affinity: the node agent's scheduler only knows nodeSelector and pod anti-affinity", p.Namespace, p.Name)
	}
	names := make([]string, 0, len(a.nodes))
	for n := range a.nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ok, err := a.fits(p, a.nodes[n], all)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID}, Target: corev1.ObjectReference{Kind: "Node", Name: n}}
		if err := a.client.CoreV1().Pods(p.Namespace).Bind(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("bind pod %s/%s to %s: %w", p.Namespace, p.Name, n, err)
		}
		a.logf("bound pod %s/%s to %s", p.Namespace, p.Name, n)
		p.Spec.NodeName = n // all holds p: the round's later pods see it there
		return nil
	}
	return nil
}

// fits says whether node's labels match p's nodeSelector and no pod on the
// node that is not finished matches one of p's required anti-affinity
// terms (topology key kubernetes.io/hostname only: each node is its own
// topology domain).
func (a *NodeAgent) fits(p *corev1.Pod, node *corev1.Node, all []corev1.Pod) (bool, error) {
	if !labels.SelectorFromSet(p.Spec.NodeSelector).Matches(labels.Set(node.Labels)) {
		return false, nil
	}
	if p.Spec.Affinity == nil || p.Spec.Affinity.PodAntiAffinity == nil {
		return true, nil
	}
	for _, term := range p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != corev1.LabelHostname {
			return false, fmt.Errorf("pod %s/%s: anti-affinity topology key %q: the node agent's scheduler knows only %s", p.Namespace, p.Name, term.TopologyKey, corev1.LabelHostname)
		}
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil {
			return false, fmt.Errorf("pod %s/%s anti-affinity: %w", p.Namespace, p.Name, err)
		}
		for i := range all {
			o := &all[i]
			finished := o.Status.Phase == corev1.PodSucceeded || o.Status.Phase == corev1.PodFailed
			if o.Spec.NodeName == node.Name && !finished && o.Namespace == p.Namespace && sel.Matches(labels.Set(o.Labels)) {
				return false, nil
			}
		}
	}
	return true, nil
}
