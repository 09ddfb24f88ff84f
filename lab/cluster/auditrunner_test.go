package cluster

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svclab/svclab/sim/audit"
	simcluster "github.com/svclab/svclab/sim/cluster"
)

// auditNodes are the fake cluster's nodes: two pools, a control-plane node
// tainted NoSchedule (audited too: the pods tolerate every taint) and a
// Windows node (not audited: the image is Linux's).
func auditNodes() []corev1.Node {
	node := func(name, pool string, taints ...corev1.Taint) corev1.Node {
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": pool, corev1.LabelOSStable: "linux"}}, Spec: corev1.NodeSpec{Taints: taints}}
	}
	return []corev1.Node{
		node("a-node-1", "a"), node("a-node-2", "a"),
		node("cp-1", "cp", corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}),
		{ObjectMeta: metav1.ObjectMeta{Name: "win-1", Labels: map[string]string{"pool": "a", corev1.LabelOSStable: "windows"}}},
	}
}

// cleanAudit and findingsAudit are what a node's pod prints, in the real
// audit types.
func cleanAudit(node string) *simcluster.NodeAudit {
	return &simcluster.NodeAudit{Node: node, Report: &audit.Report{Node: node, Mode: "nftables", Version: "1.37", Family: "IPv4", Checked: 7}}
}

func findingsAudit(node string) *simcluster.NodeAudit {
	a := cleanAudit(node)
	a.Exit = 1
	a.Report.Services = []audit.ServiceReport{{Service: "ns7/web", Findings: []audit.Finding{
		{Kind: audit.Missing, Service: "ns7/web", Object: "map service-ips", Item: "10.96.0.7 . tcp . 80"}}}}
	a.Report.Summary = audit.Summary{Missing: 1, Services: 1, Paths: 2}
	return a
}

func TestAuditRunnerAgainstFakeCluster(t *testing.T) {
	allClean := map[string]nodeScript{"a-node-1": {audit: cleanAudit("a-node-1")}, "a-node-2": {audit: cleanAudit("a-node-2")}, "cp-1": {audit: cleanAudit("cp-1")}}
	for _, tc := range []struct {
		name     string
		selector map[string]string
		audits   map[string]nodeScript
		cancelAt int
		// expireAt ends the wait as the timeout does, at this read.
		expireAt  int
		createErr string
		wantErr   error
		// want is each node's verdict (its start, for "no report: …").
		want      map[string]string
		wantLines []string
	}{{
		name:   "every node clean, the tainted one too",
		audits: allClean,
		want:   map[string]string{"a-node-1": "clean", "a-node-2": "clean", "cp-1": "clean"},
		wantLines: []string{
			"cluster audit: created ConfigMap default/svclab-audit-r1 and DaemonSet default/svclab-audit-r1",
			"cluster audit: 0 of 3 nodes reported",
			"cluster audit: node cp-1 (pod svclab-audit-r1-cp-1): clean",
			"cluster audit: 3 of 3 nodes reported",
			"cluster: deleted the DaemonSets, pods and ConfigMaps of run r1",
		},
	}, {
		name:      "findings on one node",
		audits:    map[string]nodeScript{"a-node-1": {audit: cleanAudit("a-node-1")}, "a-node-2": {audit: findingsAudit("a-node-2")}, "cp-1": {audit: cleanAudit("cp-1")}},
		want:      map[string]string{"a-node-1": "clean", "a-node-2": "findings", "cp-1": "clean"},
		wantLines: []string{"cluster audit: node a-node-2 (pod svclab-audit-r1-a-node-2): findings", "cluster audit: 3 of 3 nodes reported"},
	}, {
		name:     "the node selector picks the pool",
		selector: map[string]string{"pool": "a"},
		audits:   allClean,
		want:     map[string]string{"a-node-1": "clean", "a-node-2": "clean"},
	}, {
		name:     "a pod that never reports and one whose image is not pulled: the timeout names them",
		audits:   map[string]nodeScript{"a-node-1": {audit: cleanAudit("a-node-1")}, "a-node-2": {}, "cp-1": {pullFails: true}},
		expireAt: 6,
		wantErr:  ErrNotReported,
		want: map[string]string{"a-node-1": "clean",
			"a-node-2": "no report: pod svclab-audit-r1-a-node-2 Running, container svclab running, log: no complete cell archive",
			"cp-1":     `no report: pod svclab-audit-r1-cp-1 Pending, container svclab waiting: ImagePullBackOff Back-off pulling image "svclab:test"`},
		wantLines: []string{"cluster audit: 1 of 3 nodes reported", "cluster: deleted the DaemonSets, pods and ConfigMaps of run r1"},
	}, {
		name:      "Ctrl-C while the pods run",
		audits:    map[string]nodeScript{"a-node-1": {}, "a-node-2": {}, "cp-1": {}},
		cancelAt:  3,
		wantErr:   context.Canceled,
		want:      map[string]string{},
		wantLines: []string{"cluster audit: 0 of 3 nodes reported", "cluster: deleted the DaemonSets, pods and ConfigMaps of run r1"},
	}, {
		name:     "no node matches the selector",
		selector: map[string]string{"pool": "gen9"},
		wantErr:  ErrNoNodes,
		want:     map[string]string{},
	}, {
		name:      "the DaemonSet is refused: the ConfigMap is deleted",
		createErr: simcluster.AuditName(testRunID),
		wantErr:   errDaemonSetRefused,
		want:      map[string]string{},
		wantLines: []string{"cluster: deleted the DaemonSets, pods and ConfigMaps of run r1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeCluster(t, nil)
			f.nodes, f.audits = auditNodes(), tc.audits
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			f.cancel, f.cancelAt = cancel, tc.cancelAt
			expire := make(chan time.Time)
			if tc.expireAt > 0 {
				f.cancel, f.cancelAt = func() { close(expire) }, tc.expireAt
			}
			if tc.createErr != "" {
				f.createErr[tc.createErr] = errDaemonSetRefused
			}
			cm, ds := auditObjects(t, tc.selector)
			var progress bytes.Buffer
			r := &AuditRunner{Target: Target{Client: f.client, Namespace: "default", RunID: testRunID, Logs: f, Progress: &progress, Poll: 1,
				CleanupTimeout: 10 * time.Second}, Timeout: time.Hour, expire: expire}
			got, err := r.Run(ctx, cm, ds)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Run() error = %v, want %v\nprogress:\n%s", err, tc.wantErr, progress.String())
			}
			if left := f.left(); len(left) > 0 {
				t.Errorf("left in the API after Run: %v", left)
			}
			checkVerdicts(t, got, tc.want)
			for _, l := range tc.wantLines {
				if !strings.Contains(progress.String(), l) {
					t.Errorf("progress lacks %q; it is:\n%s", l, progress.String())
				}
			}
			if tc.wantErr == ErrNotReported {
				for node := range tc.want {
					if !strings.Contains(err.Error(), node) && tc.want[node] != "clean" {
						t.Errorf("the timeout's error does not name node %s: %v", node, err)
					}
				}
			}
		})
	}
}

var errDaemonSetRefused = apierrors.NewForbidden(appsv1.Resource("daemonsets"), "svclab-audit-r1", errors.New("privileged pods are not allowed"))

func auditObjects(t *testing.T, selector map[string]string) (*corev1.ConfigMap, *appsv1.DaemonSet) {
	t.Helper()
	o := simcluster.AuditOptions{Image: "svclab:test", Namespace: "default", RunID: testRunID, Mode: "nftables", NodeSelector: selector}
	cm, err := simcluster.AuditConfigMap([]byte("apiVersion: v1\nkind: List\nitems: []\n"), o)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := simcluster.AuditDaemonSet(o)
	if err != nil {
		t.Fatal(err)
	}
	return cm, ds
}

// checkVerdicts checks each node's result, and that no other node has one.
func checkVerdicts(t *testing.T, got []simcluster.NodeResult, want map[string]string) {
	t.Helper()
	verdicts := map[string]string{}
	for _, n := range got {
		verdicts[n.Node] = n.Verdict()
	}
	for node, w := range want {
		if v := verdicts[node]; !strings.HasPrefix(v, w) {
			t.Errorf("node %s: %q, want %q", node, v, w)
		}
	}
	if len(verdicts) != len(want) {
		t.Errorf("results for %v, want %v", keys(verdicts), keys(want))
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestPodNode checks which node a DaemonSet's pod is for, bound or not.
func TestPodNode(t *testing.T) {
	pinned := &corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n2"}}}}}}}}}}
	bound := pinned.DeepCopy()
	bound.Spec.NodeName = "n1"
	for _, tc := range []struct {
		pod  *corev1.Pod
		want string
	}{{bound, "n1"}, {pinned, "n2"}, {&corev1.Pod{}, ""}} {
		if got := podNode(tc.pod); got != tc.want {
			t.Errorf("podNode = %q, want %q", got, tc.want)
		}
	}
}

// TestPodState checks what a node that did not report is said to be.
func TestPodState(t *testing.T) {
	pod := func(phase corev1.PodPhase, st corev1.ContainerStatus, conds ...corev1.PodCondition) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Phase: phase, Conditions: conds}}
		if st.Name != "" {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
		}
		return p
	}
	crashed := corev1.ContainerStatus{Name: "svclab", RestartCount: 4, State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{Reason: "Error", ExitCode: 2}}}
	unschedulable := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/3 nodes are available"}
	for _, tc := range []struct {
		pod    *corev1.Pod
		logErr error
		want   string
	}{
		{pod(corev1.PodRunning, crashed), nil, "pod p Running, container svclab terminated: Error exit 2, 4 restarts"},
		{pod(corev1.PodPending, corev1.ContainerStatus{}, unschedulable), nil, "pod p Pending, not scheduled: Unschedulable 0/3 nodes are available"},
		{pod(corev1.PodRunning, corev1.ContainerStatus{Name: "svclab", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}),
			simcluster.ErrNoArchive, "pod p Running, container svclab running, log: no complete cell archive in the log"},
	} {
		if got := podState(tc.pod, tc.logErr); got != tc.want {
			t.Errorf("podState = %q, want %q", got, tc.want)
		}
	}
}
