package clustertest

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simcluster "github.com/svclab/svclab/sim/cluster"
)

// TestFieldValue checks the downward API fields the agent resolves, with
// those svclab's Jobs and the Job controller put in a pod among them.
func TestFieldValue(t *testing.T) {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u1",
			Annotations: map[string]string{"batch.kubernetes.io/job-completion-index": "3"},
			Labels:      map[string]string{"svclab.io/pool": "a"}},
		Spec: corev1.PodSpec{NodeName: "a-node-1"},
	}
	for _, tc := range []struct{ path, want, wantErr string }{
		{path: "metadata.name", want: "p"},
		{path: "metadata.namespace", want: "ns"},
		{path: "metadata.uid", want: "u1"},
		{path: "spec.nodeName", want: "a-node-1"},
		{path: "metadata.annotations['batch.kubernetes.io/job-completion-index']", want: "3"},
		{path: "metadata.labels['svclab.io/pool']", want: "a"},
		{path: "metadata.labels['absent']", want: ""},
		{path: "status.podIP", wantErr: "not known"},
		{path: "metadata.annotations[x]", wantErr: "not known"},
	} {
		got, err := fieldValue(p, tc.path)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: %q, %v; want an error with %q", tc.path, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}

// TestFits checks the stand-in scheduler against the pods svclab's Jobs
// make: the pool's nodeSelector, and no two unfinished pods of a run on one
// node.
func TestFits(t *testing.T) {
	node := func(name, pool string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name, "pool": pool}}}
	}
	pod := func(run string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Labels: map[string]string{simcluster.RunLabel: run}},
			Spec: corev1.PodSpec{NodeSelector: map[string]string{"pool": "a"}, Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{simcluster.RunLabel: run}},
					TopologyKey:   corev1.LabelHostname,
				}},
			}}},
		}
	}
	on := func(p *corev1.Pod, node string, phase corev1.PodPhase) corev1.Pod {
		p.Spec.NodeName, p.Status.Phase = node, phase
		return *p
	}
	a := &NodeAgent{}
	for _, tc := range []struct {
		name   string
		node   *corev1.Node
		others []corev1.Pod
		want   bool
	}{
		{name: "empty node of the pool", node: node("a-1", "a"), want: true},
		{name: "another pool", node: node("b-1", "b"), want: false},
		{name: "a running pod of the run", node: node("a-1", "a"), others: []corev1.Pod{on(pod("r1"), "a-1", corev1.PodRunning)}, want: false},
		{name: "a bound, pending pod of the run", node: node("a-1", "a"), others: []corev1.Pod{on(pod("r1"), "a-1", corev1.PodPending)}, want: false},
		{name: "a finished pod of the run", node: node("a-1", "a"), others: []corev1.Pod{on(pod("r1"), "a-1", corev1.PodSucceeded)}, want: true},
		{name: "another run's pod", node: node("a-1", "a"), others: []corev1.Pod{on(pod("r2"), "a-1", corev1.PodRunning)}, want: true},
		{name: "the run's pod on another node", node: node("a-1", "a"), others: []corev1.Pod{on(pod("r1"), "a-2", corev1.PodRunning)}, want: true},
	} {
		got, err := a.fits(pod("r1"), tc.node, tc.others)
		if err != nil || got != tc.want {
			t.Errorf("%s: fits = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	p := pod("r1")
	p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey = corev1.LabelTopologyZone
	if _, err := a.fits(p, node("a-1", "a"), nil); err == nil {
		t.Errorf("a zone anti-affinity: no error; the agent knows only hostname topology")
	}
}

// TestPodEnvOfSvclabJobs resolves the env of the pod a Job of
// sim/cluster.Jobs gives (with the index variable the Job controller adds).
func TestPodEnvOfSvclabJobs(t *testing.T) {
	jobs, err := simcluster.Jobs(simcluster.Matrix{Scenarios: []string{"split-2"}, Dataplanes: []string{"nftables"}, Versions: []string{"1.37"},
		Pools: []simcluster.Pool{{Name: "a", Selector: map[string]string{"pool": "a"}}}}, simcluster.JobOptions{Image: "i", RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	spec := jobs[0].Spec.Template.Spec
	spec.NodeName = "a-node-1"
	c := spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: simcluster.IndexEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}})
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: map[string]string{"batch.kubernetes.io/job-completion-index": "0"}}, Spec: spec}
	env, err := podEnv(p, c)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(env, "\n")
	for _, want := range []string{simcluster.NodeEnv + "=a-node-1", simcluster.IndexEnv + "=0", simcluster.CellsEnv + "=[", "PATH=" + podPath} {
		if !strings.Contains(got, want) {
			t.Errorf("env lacks %q:\n%s", want, got)
		}
	}
	c.EnvFrom = []corev1.EnvFromSource{{}}
	if _, err := podEnv(p, c); err == nil {
		t.Error("envFrom: no error; the agent does not resolve it")
	}
}
