package cluster

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// The ConfigMap that carries the objects to `svclab cluster audit`'s pods.
const (
	// ObjectsKey is the gzipped objects' key in the ConfigMap's binaryData.
	ObjectsKey = "objects.yaml.gz"
	// ObjectsDir is where the pods mount the ConfigMap.
	ObjectsDir = "/objects"
	// MaxConfigMap is the API server's limit on a ConfigMap's data.
	MaxConfigMap = 1 << 20
	// configMapRoom is left under MaxConfigMap for the metadata.
	configMapRoom = 4 << 10
)

// ErrObjectsTooLarge says the objects do not fit in a ConfigMap even
// gzipped.
var ErrObjectsTooLarge = errors.New("the objects do not fit in a ConfigMap")

// AuditOptions are `svclab cluster audit`'s DaemonSet settings.
type AuditOptions struct {
	Image     string
	Namespace string
	// RunID names the DaemonSet and ConfigMap (svclab-audit-RUNID) and
	// labels everything (RunLabel).
	RunID string
	// Mode and Version are the nodes' kube-proxy (Version "": the newest).
	Mode, Version string
	// IPTablesBackend is legacy or nft ("": the image's iptables-save).
	IPTablesBackend string
	// NodeSelector picks the nodes audited (nil: every Linux node).
	NodeSelector map[string]string
}

// AuditName is the DaemonSet's and the ConfigMap's name.
func AuditName(runID string) string { return "svclab-audit-" + runID }

func (o AuditOptions) labels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": "svclab", "app.kubernetes.io/component": "audit", RunLabel: o.RunID}
}

func (o AuditOptions) check() error {
	if o.Image == "" || o.RunID == "" || o.Mode == "" {
		return fmt.Errorf("audit DaemonSet: an image, a run id and a mode are needed")
	}
	return nil
}

// AuditConfigMap holds the objects (a kubectl List), gzipped in binaryData:
// the API server refuses a ConfigMap over 1 MiB, and objects gzip about
// tenfold. Still too large, it returns ErrObjectsTooLarge saying what to do.
func AuditConfigMap(objects []byte, o AuditOptions) (*corev1.ConfigMap, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	w, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(objects); err != nil {
		return nil, fmt.Errorf("gzip the objects: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("gzip the objects: %w", err)
	}
	if gz.Len() > MaxConfigMap-configMapRoom {
		return nil, fmt.Errorf("%w: %d bytes gzipped (%d plain), over the API server's %d KiB: audit the nodes one at a time "+
			"(kubectl debug node/NODE --profile=sysadmin --image=IMAGE -- svclab audit --live ...) with the objects copied in, "+
			"or give --objects FILE without the Services you need not audit", ErrObjectsTooLarge, gz.Len(), len(objects), MaxConfigMap>>10)
	}
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: AuditName(o.RunID), Namespace: o.Namespace, Labels: o.labels()},
		BinaryData: map[string][]byte{ObjectsKey: gz.Bytes()},
	}, nil
}

// AuditArgs are the arguments of `svclab cluster audit-node` in each pod:
// `svclab audit --live` of its own node (the kubelet expands NodeEnv).
func AuditArgs(o AuditOptions) []string {
	args := []string{"cluster", "audit-node", "--objects", ObjectsDir + "/" + ObjectsKey, "--live",
		"--mode", o.Mode, "--node", "$(" + NodeEnv + ")"}
	if o.Version != "" {
		args = append(args, "--kube-proxy-version", o.Version)
	}
	if o.IPTablesBackend != "" {
		args = append(args, "--iptables-backend", o.IPTablesBackend)
	}
	return args
}

// AuditDaemonSet runs one pod per Linux node the selector picks, tolerating
// every taint, privileged in the node's own network namespace
// (hostNetwork: it reads the node's rules, not a pod's), with the objects
// from the ConfigMap and no API access (no ServiceAccount token).
func AuditDaemonSet(o AuditOptions) (*appsv1.DaemonSet, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	labels := o.labels()
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: AuditName(o.RunID), Namespace: o.Namespace, Labels: labels},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{RunLabel: o.RunID}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       auditPodSpec(o),
			},
		},
	}, nil
}

func auditPodSpec(o AuditOptions) corev1.PodSpec {
	// The image is Linux's.
	sel := map[string]string{corev1.LabelOSStable: "linux"}
	for k, v := range o.NodeSelector {
		sel[k] = v
	}
	return corev1.PodSpec{
		NodeSelector:                 sel,
		HostNetwork:                  true,
		DNSPolicy:                    corev1.DNSClusterFirstWithHostNet,
		AutomountServiceAccountToken: ptr.To(false),
		// Every node is audited, whatever its taints.
		Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		// audit-node exits at once on SIGTERM.
		TerminationGracePeriodSeconds: ptr.To(int64(5)),
		Containers: []corev1.Container{{
			Name:            "svclab",
			Image:           o.Image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Command:         []string{"svclab"},
			Args:            AuditArgs(o),
			Env: []corev1.EnvVar{
				{Name: NodeEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			},
			SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
			VolumeMounts:    []corev1.VolumeMount{{Name: "objects", MountPath: ObjectsDir, ReadOnly: true}},
		}},
		Volumes: []corev1.Volume{{Name: "objects", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: AuditName(o.RunID)}},
		}}},
	}
}

// WriteAuditManifests writes the ConfigMap and the DaemonSet as one YAML
// stream for --dry-run. The ConfigMap's objects are elided: a comment says
// their size and what (what: e.g. "3 Services, 4 EndpointSlices, 2 Nodes").
func WriteAuditManifests(w io.Writer, cm *corev1.ConfigMap, ds *appsv1.DaemonSet, what string) error {
	shown := cm.DeepCopy()
	shown.BinaryData = nil
	cmYAML, err := yaml.Marshal(shown)
	if err != nil {
		return fmt.Errorf("ConfigMap %s as YAML: %w", cm.Name, err)
	}
	dsYAML, err := yaml.Marshal(ds)
	if err != nil {
		return fmt.Errorf("DaemonSet %s as YAML: %w", ds.Name, err)
	}
	_, err = fmt.Fprintf(w, "# binaryData.%s elided: %s, %d bytes gzipped\n%s---\n%s",
		ObjectsKey, what, len(cm.BinaryData[ObjectsKey]), cmYAML, dsYAML)
	return err
}
