package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestObjectsFileIsAScenario(t *testing.T) {
	s, err := Load("testdata/objects-badips.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Objects == nil || len(s.Explicit()) != 1 {
		t.Fatalf("objects %v, %d explicit services; want the List's one service", s.Objects, len(s.Explicit()))
	}
	if got := s.Explicit()[0].ClusterIP.String(); got != "172.30.0.41" {
		t.Errorf("clusterIP %s", got)
	}
	if s.Cluster().NodeName != "node-1" {
		t.Errorf("node %q: no Node and no endpoint nodeName, want node-1", s.Cluster().NodeName)
	}
	if _, err := s.WithKubeProxy("native", "1.35"); err != nil {
		t.Errorf("WithKubeProxy on an objects scenario: %v", err)
	}
}

func TestClusterObjectsReference(t *testing.T) {
	dir := t.TempDir()
	objs, _ := os.ReadFile("testdata/objects-badips.yaml")
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("cluster.yaml", string(objs))
	sc := write("sc.yaml", "cluster: {objects: cluster.yaml, nodeName: other}\nsynthetic: {services: 5, endpointsPerService: 1}\n")
	s, err := Load(sc)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	if m.Services.Len() != 6 || m.Services.At(0).Name != "svc1" {
		t.Errorf("%d services, first %s; want the object's service first, then 5 synthetic", m.Services.Len(), m.Services.At(0).Name)
	}
	if m.Cluster.NodeName != "other" {
		t.Errorf("node %q, want cluster.nodeName", m.Cluster.NodeName)
	}
	h1 := s.Hash()
	write("cluster.yaml", strings.Replace(string(objs), "10.180.00.001", "10.180.0.2", 1))
	s2, err := Load(sc)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Hash() == h1 {
		t.Error("the hash does not change with the objects file")
	}
	write("bad.yaml", strings.Replace(string(objs), "172.30.0.041", "172.30.0.300", 1))
	write("sc2.yaml", "cluster: {objects: bad.yaml}\n")
	_, err = Load(filepath.Join(dir, "sc2.yaml"))
	want := `bad.yaml: Service ns1/svc1: spec.clusterIP: "172.30.0.300" is not an IP address`
	if _, ok := err.(*FieldError); !ok || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v (%T), want a *FieldError containing %q", err, err, want)
	}
	write("sc3.yaml", "cluster:\n  objects: missing.yaml\n")
	_, err = Load(filepath.Join(dir, "sc3.yaml"))
	if err == nil || !strings.Contains(err.Error(), "sc3.yaml:2: cluster.objects: cannot read") {
		t.Errorf("missing objects file: %v", err)
	}
}
