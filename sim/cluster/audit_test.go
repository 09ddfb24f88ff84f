package cluster

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/audit/audittest"
	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/objects"
)

func auditOptions() AuditOptions {
	return AuditOptions{Image: "registry.example/svclab:v1", Namespace: "lab", RunID: "20261202-120000", Mode: "iptables",
		Version: "1.36", IPTablesBackend: "legacy", NodeSelector: map[string]string{"pool": "gen7"}}
}

// testObjects is sim/audit's test cluster as ObjectsList encodes it.
func testObjects(t *testing.T) ([]byte, *objects.Objects) {
	t.Helper()
	o := audittest.Objects(t)
	b, err := ObjectsList(o.KubeServices, o.Slices, o.KubeNodes)
	if err != nil {
		t.Fatal(err)
	}
	return b, o
}

// TestAuditManifests checks what --dry-run prints (golden), and that it
// reads back strictly as a ConfigMap and a DaemonSet with what a node's
// audit needs: the node's own network namespace, privilege, every taint
// tolerated, the objects mounted, the node's name from the downward API,
// and no API access.
func TestAuditManifests(t *testing.T) {
	raw, _ := testObjects(t)
	cm, err := AuditConfigMap(raw, auditOptions())
	if err != nil {
		t.Fatal(err)
	}
	ds, err := AuditDaemonSet(auditOptions())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteAuditManifests(&out, cm, ds, "7 Services"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/audit-manifests.yaml", out.Bytes())
	docs := strings.Split(out.String(), "\n---\n")
	var gotCM corev1.ConfigMap
	var gotDS appsv1.DaemonSet
	if len(docs) != 2 || yaml.UnmarshalStrict([]byte(docs[0]), &gotCM) != nil || yaml.UnmarshalStrict([]byte(docs[1]), &gotDS) != nil {
		t.Fatalf("want a ConfigMap and a DaemonSet:\n%s", out.String())
	}
	pod := gotDS.Spec.Template.Spec
	c := pod.Containers[0]
	for _, check := range []struct {
		what      string
		got, want any
	}{
		{"ConfigMap kind", gotCM.Kind, "ConfigMap"},
		{"DaemonSet kind", gotDS.Kind, "DaemonSet"},
		{"selector matches the pods", gotDS.Spec.Selector.MatchLabels[RunLabel], gotDS.Spec.Template.Labels[RunLabel]},
		{"node selector", pod.NodeSelector, map[string]string{"pool": "gen7", corev1.LabelOSStable: "linux"}},
		{"hostNetwork", pod.HostNetwork, true},
		{"privileged", *c.SecurityContext.Privileged, true},
		{"tolerates every taint", pod.Tolerations, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
		{"no service account token", *pod.AutomountServiceAccountToken, false},
		{"objects volume", pod.Volumes[0].ConfigMap.Name, cm.Name},
		{"node name", c.Env[0].ValueFrom.FieldRef.FieldPath, "spec.nodeName"},
		{"args", c.Args, []string{"cluster", "audit-node", "--objects", "/objects/objects.yaml.gz", "--live", "--mode", "iptables",
			"--node", "$(SVCLAB_NODE_NAME)", "--kube-proxy-version", "1.36", "--iptables-backend", "legacy"}},
	} {
		if !reflect.DeepEqual(check.got, check.want) {
			t.Errorf("%s = %v, want %v", check.what, check.got, check.want)
		}
	}
}

// TestAuditConfigMap checks the objects travel gzipped and whole, and
// that objects too large even gzipped are refused saying what to do.
func TestAuditConfigMap(t *testing.T) {
	raw, _ := testObjects(t)
	cm, err := AuditConfigMap(raw, auditOptions())
	if err != nil {
		t.Fatal(err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(cm.BinaryData[ObjectsKey]))
	if err != nil {
		t.Fatal(err)
	}
	back, err := io.ReadAll(gz)
	if err != nil || !bytes.Equal(back, raw) {
		t.Fatalf("the ConfigMap's objects: %d bytes back (%v), want the %d given", len(back), err, len(raw))
	}
	if len(cm.Data) != 0 || len(cm.BinaryData[ObjectsKey]) >= len(raw) {
		t.Errorf("want only binaryData, smaller than the objects: %d bytes of %d", len(cm.BinaryData[ObjectsKey]), len(raw))
	}
	noise := make([]byte, MaxConfigMap) // random bytes do not compress
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	_, err = AuditConfigMap(noise, auditOptions())
	if !errors.Is(err, ErrObjectsTooLarge) || !strings.Contains(err.Error(), "one at a time") {
		t.Errorf("AuditConfigMap(1 MiB of noise) = %v, want ErrObjectsTooLarge saying what to do", err)
	}
	if _, err := AuditDaemonSet(AuditOptions{Image: "i", RunID: "r"}); err == nil {
		t.Error("AuditDaemonSet without a mode: no error")
	}
}

// TestObjectsList checks the API server's objects become a List svclab
// audit reads, without managedFields and kubectl's last-applied copy.
func TestObjectsList(t *testing.T) {
	o := audittest.Objects(t)
	svcs := append([]corev1.Service(nil), o.KubeServices...)
	svcs[0].Annotations = map[string]string{lastApplied: `{"huge":"copy"}`, "keep": "me"}
	svcs[0].TypeMeta.Kind = "" // as a list from the API server has it
	b, err := ObjectsList(svcs, o.Slices, o.KubeNodes)
	if err != nil {
		t.Fatal(err)
	}
	back, err := objects.Decode("list", b)
	if err != nil {
		t.Fatalf("objects.Decode: %v\n%s", err, b)
	}
	if len(back.KubeServices) != len(o.KubeServices) || len(back.Slices) != len(o.Slices) || len(back.KubeNodes) != len(o.KubeNodes) {
		t.Errorf("decoded %d Services, %d slices, %d Nodes; want %d, %d, %d", len(back.KubeServices), len(back.Slices), len(back.KubeNodes),
			len(o.KubeServices), len(o.Slices), len(o.KubeNodes))
	}
	if strings.Contains(string(b), lastApplied) || !strings.Contains(string(b), "keep: me") {
		t.Errorf("want the last-applied annotation dropped and the others kept:\n%s", b)
	}
	if !reflect.DeepEqual(back.Nodes, o.Nodes) {
		t.Errorf("Nodes %+v, want %+v", back.Nodes, o.Nodes)
	}
}

func testReport(node string, missing int) *audit.Report {
	r := &audit.Report{Node: node, Mode: "nftables", Version: "1.37", Family: "IPv4", Checked: 7, Paths: 40}
	if missing > 0 {
		r.Services = []audit.ServiceReport{{Service: "ns7/web", Findings: []audit.Finding{
			{Kind: audit.Missing, Service: "ns7/web", Object: "map service-ips", Item: "172.30.0.47 . tcp . 80"}}}}
		r.Summary = audit.Summary{Missing: missing, Services: 1, Paths: 2}
	}
	return r
}

// TestNodeAuditRoundTrip checks a node's audit is read back from its
// pod's log with the real audit types, the last one when there are two.
func TestNodeAuditRoundTrip(t *testing.T) {
	want := NodeAudit{Node: "n1", Exit: 1, Report: testReport("n1", 1)}
	var log bytes.Buffer
	log.WriteString("cluster audit-node: svclab audit ...\n")
	if err := PackNodeAudit(&log, NodeAudit{Node: "n1", Exit: 3, Error: "an earlier container"}); err != nil {
		t.Fatal(err)
	}
	if err := PackNodeAudit(&log, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadNodeAudit(&log)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadNodeAudit = %+v, %v; want %+v", got, err, want)
	}
	if _, err := ReadNodeAudit(strings.NewReader("only progress\n")); !errors.Is(err, ErrNoArchive) {
		t.Errorf("a log without a report: %v, want ErrNoArchive", err)
	}
	var cell bytes.Buffer
	if err := PackFile(&cell, "cell.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNodeAudit(&cell); err == nil || !strings.Contains(err.Error(), NodeAuditFile) {
		t.Errorf("an archive without %s: %v", NodeAuditFile, err)
	}
}

// TestAuditSummary checks the summary by node in each format (golden),
// and when the cluster is clean.
func TestAuditSummary(t *testing.T) {
	nodes := []NodeResult{
		{Node: "b-node-1", Pod: "p-b", Audit: &NodeAudit{Node: "b-node-1", Exit: 1, Report: testReport("b-node-1", 1)}},
		{Node: "a-node-1", Pod: "p-a", Audit: &NodeAudit{Node: "a-node-1", Report: testReport("a-node-1", 0)}},
		{Node: "c-node-1", Pod: "p-c", Audit: &NodeAudit{Node: "c-node-1", Exit: 3, Error: "nft: command not found"}},
		{Node: "d-node-1", Pod: "p-d", NoReport: "pod p-d Pending, container svclab waiting: ImagePullBackOff"},
	}
	s := Summarize(nodes)
	if s.Clean || s.Nodes[0].Node != "a-node-1" {
		t.Errorf("Summarize: clean %v, first %s; want not clean, sorted", s.Clean, s.Nodes[0].Node)
	}
	for _, format := range []string{"text", "markdown", "json"} {
		var b bytes.Buffer
		if err := s.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "testdata/audit-summary."+format, b.Bytes())
	}
	if !Summarize(nodes[1:2]).Clean || Summarize(nil).Clean {
		t.Error("want one clean node clean, and no node not clean")
	}
	if err := s.Write(io.Discard, "xml"); err == nil {
		t.Error("format xml: no error")
	}
}
