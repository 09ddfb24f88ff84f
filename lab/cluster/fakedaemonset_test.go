package cluster

import (
	"bytes"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	simcluster "github.com/svclab/svclab/sim/cluster"
)

// nodeScript is what a node's audit pod does once the DaemonSet controller
// made it: print a report (audit), stay silent while running, or never
// start its container (an image that cannot be pulled).
type nodeScript struct {
	audit     *simcluster.NodeAudit
	pullFails bool
}

// stepDaemonSet is one step of the DaemonSet controller and the nodes'
// kubelets: each node the pod template's nodeSelector picks and whose
// NoSchedule taints it tolerates gets a pod (Pending, bound to it); a
// Pending pod starts (Running, its log written as the node's script says)
// unless its image pull fails; the status counts follow, with
// observedGeneration.
func (f *fakeCluster) stepDaemonSet(ds *appsv1.DaemonSet) error {
	pods, err := f.podsOfDaemonSet(ds)
	if err != nil {
		return err
	}
	st := appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation}
	for i := range f.nodes {
		n := &f.nodes[i]
		if !runsOn(&ds.Spec.Template.Spec, n) {
			continue
		}
		st.DesiredNumberScheduled++
		p, ok := pods[n.Name]
		switch {
		case !ok:
			err = f.createDaemonPod(ds, n.Name)
		case p.Status.Phase == corev1.PodPending:
			err = f.startDaemonPod(p)
		}
		if err != nil {
			return err
		}
		if ok {
			st.CurrentNumberScheduled++
		}
		if ok && p.Status.Phase == corev1.PodRunning {
			st.NumberReady++
		}
	}
	ds.Status = st
	return f.client.Tracker().Update(daemonSetsGVR, ds, ds.Namespace)
}

// runsOn says whether the DaemonSet controller puts a pod of spec on n.
func runsOn(spec *corev1.PodSpec, n *corev1.Node) bool {
	if !labels.SelectorFromSet(spec.NodeSelector).Matches(labels.Set(n.Labels)) {
		return false
	}
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		tolerated := false
		for _, tol := range spec.Tolerations {
			tolerated = tolerated || tol.ToleratesTaint(klog.Background(), t, false)
		}
		if !tolerated {
			return false
		}
	}
	return true
}

// podsOfDaemonSet are its pods by node.
func (f *fakeCluster) podsOfDaemonSet(ds *appsv1.DaemonSet) (map[string]*corev1.Pod, error) {
	obj, err := f.client.Tracker().List(podsGVR, podGVK, ds.Namespace)
	if err != nil {
		return nil, err
	}
	out := map[string]*corev1.Pod{}
	for i := range obj.(*corev1.PodList).Items {
		p := &obj.(*corev1.PodList).Items[i]
		if len(p.OwnerReferences) > 0 && p.OwnerReferences[0].Name == ds.Name {
			out[p.Spec.NodeName] = p
		}
	}
	return out, nil
}

// createDaemonPod makes the node's pod from the template, as the
// DaemonSet controller does (pinned to the node by a required node
// affinity, which the scheduler turns into spec.nodeName at once here).
func (f *fakeCluster) createDaemonPod(ds *appsv1.DaemonSet, node string) error {
	p := &corev1.Pod{
		ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(),
		Spec:       *ds.Spec.Template.Spec.DeepCopy(),
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}
	p.Name, p.Namespace = ds.Name+"-"+node, ds.Namespace
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, Controller: ptr.To(true)}}
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}},
	}}}
	p.Spec.NodeName = node
	return f.client.Tracker().Create(podsGVR, p, p.Namespace)
}

// startDaemonPod starts the pod's container and writes its log as its
// node's script says; a failing pull leaves it Pending, waiting.
func (f *fakeCluster) startDaemonPod(p *corev1.Pod) error {
	p = p.DeepCopy()
	s := f.audits[p.Spec.NodeName]
	st := corev1.ContainerStatus{Name: "svclab"}
	if s.pullFails {
		st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "svclab:test"`}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
		return f.client.Tracker().Update(podsGVR, p, p.Namespace)
	}
	var log bytes.Buffer
	fmt.Fprintf(&log, "cluster audit-node: svclab audit %v\n", p.Spec.Containers[0].Args)
	if s.audit != nil {
		if err := simcluster.PackNodeAudit(&log, *s.audit); err != nil {
			return err
		}
	}
	f.mu.Lock()
	f.logs[p.Name] = log.Bytes()
	f.mu.Unlock()
	st.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.Time{Time: time.Unix(0, 0)}}
	p.Status.Phase, p.Status.ContainerStatuses = corev1.PodRunning, []corev1.ContainerStatus{st}
	return f.client.Tracker().Update(podsGVR, p, p.Namespace)
}
