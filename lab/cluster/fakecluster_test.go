package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	simcluster "github.com/svclab/svclab/sim/cluster"
)

var (
	jobsGVR       = batchv1.SchemeGroupVersion.WithResource("jobs")
	jobGVK        = batchv1.SchemeGroupVersion.WithKind("Job")
	podsGVR       = corev1.SchemeGroupVersion.WithResource("pods")
	podGVK        = corev1.SchemeGroupVersion.WithKind("Pod")
	daemonSetsGVR = appsv1.SchemeGroupVersion.WithResource("daemonsets")
	configMapsGVR = corev1.SchemeGroupVersion.WithResource("configmaps")
	// kinds are the resources a run creates, with their kinds: what
	// deletecollection and left know.
	kinds = map[schema.GroupVersionResource]schema.GroupVersionKind{
		jobsGVR: jobGVK, podsGVR: podGVK,
		daemonSetsGVR: appsv1.SchemeGroupVersion.WithKind("DaemonSet"),
		configMapsGVR: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
	}
)

// attempt is how one pod of a cell ends: its phase, and whether its log
// holds the cell's archive.
type attempt struct {
	phase   corev1.PodPhase
	archive bool
}

var (
	succeeds = attempt{corev1.PodSucceeded, true}
	fails    = attempt{corev1.PodFailed, true}
	// dies fails before `svclab cluster cell` packed anything.
	dies = attempt{corev1.PodFailed, false}
)

// fakeCluster is client-go's fake clientset with what a cluster adds
// simulated over its object tracker, so the Runner and the AuditRunner
// meet the API objects a cluster would show them:
//   - the Job controller: before each read of a Job it advances that Job
//     one step: it creates each index's pod (the template's spec, the
//     index's annotation and label, a node of the pool), which the kubelet
//     starts (Pending, Running) and ends as the script says; a failed index
//     gets a new pod until backoffLimitPerIndex is spent; the Job's status
//     counts and its Complete or Failed condition follow. A pod and its
//     Job's condition change in one step, so a poll that reads the pods
//     before the Jobs misses the last cells;
//   - the DaemonSet controller and the nodes' kubelets, for the
//     AuditRunner: fakedaemonset_test.go;
//   - the API server's deletecollection, which the fake does not implement
//     (it answers nil and deletes nothing): Jobs go at once, a pod on a node
//     is marked terminating and goes at its kubelet's second pod list;
//   - each pod's log: its progress, then the archive `svclab cluster cell`
//     packs (a cell.json naming the cell and attempt), read through the
//     Runner's LogSource seam because the fake's GetLogs does not say
//     which pod it reads.
type fakeCluster struct {
	t      *testing.T
	client *fake.Clientset
	script map[string][]attempt // by "pool/index"; an index not in it succeeds at once

	// nodes and audits are the DaemonSet side: the cluster's nodes and
	// what each one's audit pod does.
	nodes  []corev1.Node
	audits map[string]nodeScript

	mu          sync.Mutex
	logs        map[string][]byte
	terminating map[string]int // pod name: pod lists until it goes
	reads       int            // Job or DaemonSet reads so far
	cancelAt    int            // cancel at this read (0: never)
	cancel      context.CancelFunc
	createErr   map[string]error // an object's create fails with this, by name
	created     []runtime.Object
}

// maxReads stops a Runner that never finishes.
const maxReads = 500

func newFakeCluster(t *testing.T, script map[string][]attempt) *fakeCluster {
	// The simple clientset: the Runner applies nothing, so it needs no
	// field management (NewClientset's costs seconds on a loaded machine).
	f := &fakeCluster{t: t, client: fake.NewSimpleClientset(), script: script,
		logs: map[string][]byte{}, terminating: map[string]int{}, createErr: map[string]error{}, audits: map[string]nodeScript{}}
	f.client.PrependReactor("create", "*", f.onCreate)
	f.client.PrependReactor("get", "jobs", f.stepOnGet(jobsGVR, "Job", func(o runtime.Object) error { return f.stepJob(o.(*batchv1.Job)) }))
	f.client.PrependReactor("get", "daemonsets", f.stepOnGet(daemonSetsGVR, "DaemonSet", func(o runtime.Object) error {
		return f.stepDaemonSet(o.(*appsv1.DaemonSet))
	}))
	f.client.PrependReactor("list", "pods", f.onListPods)
	f.client.PrependReactor("delete-collection", "*", f.onDeleteCollection)
	return f
}

// onCreate records what is created and refuses what createErr names; the
// API server starts an object's generation at 1.
func (f *fakeCluster) onCreate(a k8stesting.Action) (bool, runtime.Object, error) {
	obj := a.(k8stesting.CreateAction).GetObject()
	m, err := meta.Accessor(obj)
	if err != nil {
		return true, nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.createErr[m.GetName()]; err != nil {
		return true, nil, err
	}
	if _, ok := obj.(*appsv1.DaemonSet); ok {
		m.SetGeneration(1)
	}
	f.created = append(f.created, obj.DeepCopyObject())
	return false, nil, nil // the tracker stores it
}

// createdJobs are the Jobs created, in order.
func (f *fakeCluster) createdJobs() []*batchv1.Job {
	var out []*batchv1.Job
	for _, o := range f.created {
		if j, ok := o.(*batchv1.Job); ok {
			out = append(out, j)
		}
	}
	return out
}

// read counts a read of a Job or DaemonSet: the runners poll by them. It
// cancels the run at cancelAt, and stops a runner that never finishes.
func (f *fakeCluster) read() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.reads == f.cancelAt || f.reads == maxReads {
		if f.reads == maxReads {
			f.t.Errorf("the runner read its objects %d times without finishing", maxReads)
		}
		f.cancel()
	}
}

// stepOnGet is a get reactor that counts the read and advances the
// object's controller one step (step) before the tracker answers.
func (f *fakeCluster) stepOnGet(gvr schema.GroupVersionResource, controller string, step func(runtime.Object) error) k8stesting.ReactionFunc {
	return func(a k8stesting.Action) (bool, runtime.Object, error) {
		f.read()
		obj, err := f.client.Tracker().Get(gvr, a.GetNamespace(), a.(k8stesting.GetAction).GetName())
		if err != nil {
			return false, nil, nil // the tracker answers NotFound
		}
		if err := step(obj); err != nil {
			f.t.Errorf("simulated %s controller: %v", controller, err)
		}
		return false, nil, nil
	}
}

// stepJob is one step of the Job controller and the pool's kubelets.
func (f *fakeCluster) stepJob(j *batchv1.Job) error {
	if finished(j) {
		return nil
	}
	pods, err := f.podsOf(j)
	if err != nil {
		return err
	}
	st := batchv1.JobStatus{StartTime: &metav1.Time{Time: time.Unix(0, 0)}}
	var failedIndexes []string
	terminal := 0
	for i := 0; i < int(*j.Spec.Completions); i++ {
		ip := pods[i]
		var cur *corev1.Pod
		if len(ip) > 0 {
			cur = ip[len(ip)-1]
		}
		switch {
		case cur == nil || (cur.Status.Phase == corev1.PodFailed && len(ip) <= int(*j.Spec.BackoffLimitPerIndex)):
			err = f.createPod(j, i, len(ip))
		case cur.Status.Phase == corev1.PodPending:
			err = f.setPhase(cur, corev1.PodRunning)
		case cur.Status.Phase == corev1.PodRunning:
			err = f.finish(j, cur, i, len(ip)-1)
		}
		if err != nil {
			return err
		}
		// Count what this step leaves.
		pods, err = f.podsOf(j)
		if err != nil {
			return err
		}
		ip = pods[i]
		cur = ip[len(ip)-1]
		for _, p := range ip {
			if p.Status.Phase == corev1.PodFailed {
				st.Failed++
			}
		}
		switch cur.Status.Phase {
		case corev1.PodSucceeded:
			st.Succeeded++
			terminal++
		case corev1.PodFailed: // retries spent, or a new pod comes next step
			if len(ip) > int(*j.Spec.BackoffLimitPerIndex) {
				failedIndexes = append(failedIndexes, strconv.Itoa(i))
				terminal++
			}
		default:
			st.Active++
		}
	}
	if len(failedIndexes) > 0 {
		st.FailedIndexes = ptr.To(strings.Join(failedIndexes, ","))
	}
	if terminal == int(*j.Spec.Completions) {
		cond := batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}
		if len(failedIndexes) > 0 {
			cond = batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonFailedIndexes}
		}
		st.Conditions = []batchv1.JobCondition{cond}
	}
	j.Status = st
	return f.client.Tracker().Update(jobsGVR, j, j.Namespace)
}

func finished(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// podsOf lists a Job's pods by index, oldest attempt first.
func (f *fakeCluster) podsOf(j *batchv1.Job) (map[int][]*corev1.Pod, error) {
	obj, err := f.client.Tracker().List(podsGVR, podGVK, j.Namespace)
	if err != nil {
		return nil, err
	}
	byIndex := map[int][]*corev1.Pod{}
	for i := range obj.(*corev1.PodList).Items {
		p := &obj.(*corev1.PodList).Items[i]
		if p.Labels[batchv1.JobNameLabel] != j.Name {
			continue
		}
		idx, err := strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
		if err != nil {
			return nil, fmt.Errorf("pod %s: index: %w", p.Name, err)
		}
		byIndex[idx] = append(byIndex[idx], p)
	}
	for _, ps := range byIndex {
		sortByAttempt(ps)
	}
	return byIndex, nil
}

// createPod makes index i's pod for attempt n from the Job's template, as
// the Job controller does, already bound to a node of the pool.
func (f *fakeCluster) createPod(j *batchv1.Job, i, n int) error {
	p := &corev1.Pod{
		ObjectMeta: *j.Spec.Template.ObjectMeta.DeepCopy(),
		Spec:       *j.Spec.Template.Spec.DeepCopy(),
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}
	p.Name = fmt.Sprintf("%s-%d-a%d", j.Name, i, n)
	p.Namespace = j.Namespace
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[batchv1.JobNameLabel] = j.Name
	p.Labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(i)
	p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(i), "test/attempt": strconv.Itoa(n)}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: j.Name, Controller: ptr.To(true)}}
	p.Spec.NodeName = fmt.Sprintf("%s-node-%d", j.Labels[simcluster.PoolLabel], i)
	return f.client.Tracker().Create(podsGVR, p, p.Namespace)
}

func (f *fakeCluster) setPhase(p *corev1.Pod, phase corev1.PodPhase) error {
	p = p.DeepCopy()
	p.Status.Phase = phase
	return f.client.Tracker().Update(podsGVR, p, p.Namespace)
}

// finish ends attempt n of index i as the script says and writes its log.
func (f *fakeCluster) finish(j *batchv1.Job, p *corev1.Pod, i, n int) error {
	pool := j.Labels[simcluster.PoolLabel]
	a := succeeds
	if s := f.script[fmt.Sprintf("%s/%d", pool, i)]; n < len(s) {
		a = s[n]
	}
	var log bytes.Buffer
	fmt.Fprintf(&log, "cluster cell %d: svclab run ...\nsplit-2: 20000 connections\n", i)
	if a.archive {
		cell := fstest.MapFS{"cell.json": {Data: []byte(cellJSON(pool, i, n))}, "results.jsonl": {Data: []byte("{}\n")}}
		if err := simcluster.Pack(&log, cell); err != nil {
			return err
		}
	}
	f.mu.Lock()
	f.logs[p.Name] = log.Bytes()
	f.mu.Unlock()
	return f.setPhase(p, a.phase)
}

func cellJSON(pool string, index, attempt int) string {
	return fmt.Sprintf(`{"pool":%q,"index":%d,"attempt":%d}`, pool, index, attempt)
}

func (f *fakeCluster) onListPods(k8stesting.Action) (bool, runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for name, left := range f.terminating {
		if left > 1 {
			f.terminating[name] = left - 1
			continue
		}
		delete(f.terminating, name)
		obj, err := f.client.Tracker().List(podsGVR, podGVK, "")
		if err != nil {
			return true, nil, err
		}
		for _, p := range obj.(*corev1.PodList).Items {
			if p.Name == name {
				if err := f.client.Tracker().Delete(podsGVR, p.Namespace, name); err != nil {
					return true, nil, err
				}
			}
		}
	}
	return false, nil, nil
}

// onDeleteCollection deletes what the label selector matches, as the API
// server does: a pod on a node goes only after its kubelet stopped it.
func (f *fakeCluster) onDeleteCollection(a k8stesting.Action) (bool, runtime.Object, error) {
	dc := a.(k8stesting.DeleteCollectionActionImpl)
	sel, err := labels.Parse(dc.GetListOptions().LabelSelector)
	if err != nil {
		return true, nil, err
	}
	gvr := a.GetResource()
	gvk, ok := kinds[gvr]
	if !ok {
		return true, nil, fmt.Errorf("deletecollection of %v: not simulated", gvr)
	}
	obj, err := f.client.Tracker().List(gvr, gvk, a.GetNamespace())
	if err != nil {
		return true, nil, err
	}
	items, err := metaItems(obj)
	if err != nil {
		return true, nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, o := range items {
		if !sel.Matches(labels.Set(o.GetLabels())) {
			continue
		}
		if p, ok := o.(*corev1.Pod); ok && p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			p = p.DeepCopy()
			p.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
			f.terminating[p.Name] = 2
			if err := f.client.Tracker().Update(podsGVR, p, p.Namespace); err != nil {
				return true, nil, err
			}
			continue
		}
		if err := f.client.Tracker().Delete(gvr, o.GetNamespace(), o.GetName()); err != nil {
			return true, nil, err
		}
	}
	return true, nil, nil
}

// metaItems are a list's items (their typed objects, e.g. *corev1.Pod).
func metaItems(list runtime.Object) ([]metav1.Object, error) {
	objs, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]metav1.Object, 0, len(objs))
	for _, o := range objs {
		m, err := meta.Accessor(o)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// left lists the Jobs, DaemonSets, pods and ConfigMaps still in the API,
// by name.
func (f *fakeCluster) left() []string {
	var names []string
	for gvr, gvk := range kinds {
		obj, err := f.client.Tracker().List(gvr, gvk, "")
		if err != nil {
			f.t.Fatalf("list %v: %v", gvr, err)
		}
		items, err := metaItems(obj)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, o := range items {
			names = append(names, gvr.Resource+"/"+o.GetName())
		}
	}
	sort.Strings(names)
	return names
}

// Logs is the LogSource: a finished pod's log as its container wrote it.
func (f *fakeCluster) Logs(_ context.Context, p *corev1.Pod) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.logs[p.Name]
	if !ok {
		return nil, fmt.Errorf("pod %s has no log", p.Name)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func sortByAttempt(ps []*corev1.Pod) {
	n := func(p *corev1.Pod) int { v, _ := strconv.Atoi(p.Annotations["test/attempt"]); return v }
	sort.Slice(ps, func(a, b int) bool { return n(ps[a]) < n(ps[b]) })
}
