package cluster

import (
	"encoding/json"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Labels and environment the Jobs, their pods and `svclab cluster cell`
// share.
const (
	// RunLabel carries the cluster run's id on every Job and pod.
	RunLabel = "svclab.io/cluster-run"
	// PoolLabel carries the pool's name.
	PoolLabel = "svclab.io/pool"
	// CellsEnv holds the pool's cells as JSON; the pod picks its own by
	// JOB_COMPLETION_INDEX.
	CellsEnv = "SVCLAB_CLUSTER_CELLS"
	// IndexEnv is set by Kubernetes in an Indexed Job's pods.
	IndexEnv = "JOB_COMPLETION_INDEX"
	// NodeEnv is the node's name (the downward API's spec.nodeName).
	NodeEnv = "SVCLAB_NODE_NAME"
	// CellDir is where the pod's run directory goes.
	CellDir = "/work/cell"
)

// JobOptions are the Jobs' settings besides the matrix.
type JobOptions struct {
	Image     string
	Namespace string
	// RunID names the Jobs (svclab-RUNID-POOL) and labels everything.
	RunID string
	// Retries is each index's backoffLimitPerIndex.
	Retries int32
	// DeadlineSeconds bounds each Job (activeDeadlineSeconds).
	DeadlineSeconds int64
}

// Jobs builds one Indexed Job per pool. Each index runs one cell,
// privileged in its pod's own network namespace, pinned to the pool by its
// node selector; a required pod anti-affinity keeps two cells of a run off
// one node at a time, so no cell measures another's traffic.
func Jobs(m Matrix, o JobOptions) ([]*batchv1.Job, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if o.Image == "" || o.RunID == "" {
		return nil, fmt.Errorf("jobs: an image and a run id are needed")
	}
	jobs := make([]*batchv1.Job, 0, len(m.Pools))
	for _, p := range m.Pools {
		cells := m.Cells(p.Name)
		b, err := json.Marshal(cells)
		if err != nil {
			return nil, fmt.Errorf("pool %s cells: %w", p.Name, err)
		}
		jobs = append(jobs, job(p, len(cells), string(b), o))
	}
	return jobs, nil
}

// JobName is the pool's Job's name.
func JobName(runID, pool string) string { return "svclab-" + runID + "-" + pool }

func job(p Pool, n int, cells string, o JobOptions) *batchv1.Job {
	labels := map[string]string{"app.kubernetes.io/name": "svclab", RunLabel: o.RunID, PoolLabel: p.Name}
	j := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: JobName(o.RunID, p.Name), Namespace: o.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode:       ptr.To(batchv1.IndexedCompletion),
			Completions:          ptr.To(int32(n)),
			Parallelism:          ptr.To(int32(n)),
			BackoffLimitPerIndex: ptr.To(o.Retries),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       podSpec(p, cells, o, labels),
			},
		},
	}
	if o.DeadlineSeconds > 0 {
		j.Spec.ActiveDeadlineSeconds = ptr.To(o.DeadlineSeconds)
	}
	return j
}

func podSpec(p Pool, cells string, o JobOptions, labels map[string]string) corev1.PodSpec {
	return corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		NodeSelector:  p.Selector,
		Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{RunLabel: o.RunID}},
				TopologyKey:   corev1.LabelHostname,
			}},
		}},
		// A lab node may be tainted for benchmarks only.
		Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		Containers: []corev1.Container{{
			Name:            "svclab",
			Image:           o.Image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Command:         []string{"svclab", "cluster", "cell"},
			Env: []corev1.EnvVar{
				{Name: CellsEnv, Value: cells},
				{Name: NodeEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			},
			SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
			VolumeMounts:    []corev1.VolumeMount{{Name: "modules", MountPath: "/lib/modules", ReadOnly: true}},
		}},
		Volumes: []corev1.Volume{{Name: "modules", VolumeSource: corev1.VolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: "/lib/modules"},
		}}},
	}
}

// CellFor picks the cell of an index from CellsEnv's JSON.
func CellFor(cellsJSON, index string) (Cell, error) {
	var cells []Cell
	if err := json.Unmarshal([]byte(cellsJSON), &cells); err != nil {
		return Cell{}, fmt.Errorf("%s: %w", CellsEnv, err)
	}
	for _, c := range cells {
		if fmt.Sprint(c.Index) == index {
			return c, nil
		}
	}
	return Cell{}, fmt.Errorf("%s=%q: no such cell among %d (is this pod one of svclab cluster run's Jobs?)", IndexEnv, index, len(cells))
}
