package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/scenario"
)

const cluster500 = "../../sim/objects/testdata/cluster-500.yaml"

// TestImportCluster500 is the acceptance test of svclab import: the
// summary of 500 services mixing every feature, an anonymised copy that
// renders to the same rule counts in every mode and family, and a scenario
// of the shape at 2× that the scenario loader accepts and renders.
func TestImportCluster500(t *testing.T) {
	dir := t.TempDir()
	anon, sc := filepath.Join(dir, "anon.yaml"), filepath.Join(dir, "ours.yaml")
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"import", cluster500, "--anonymize", anon, "--anonymize-key", "k", "--scenario", sc, "--scale", "2"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"services      500 (", "types         ClusterIP", "families      IPv4", "per service   {0: ", "wrote " + anon, "wrote " + sc} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "ignored 1 object of other kinds (ConfigMap 1)") {
		t.Errorf("stderr %q: want the ignored objects counted", stderr.String())
	}
	orig := loadModel(t, cluster500)
	copy := loadModel(t, anon)
	raw, _ := os.ReadFile(anon)
	for _, leak := range []string{`team-`, `app-1`, `(^|[^0-9.])10\.96\.`, `zone-a\s`, `tgt-`, `198\.51\.100\.0/24`} {
		if regexp.MustCompile(`(?m)` + leak).Match(raw) {
			t.Errorf("the anonymised copy still matches %q", leak)
		}
	}
	compared := 0
	for _, fam := range []model.Family{model.IPv4, model.IPv6} {
		for _, mode := range []string{"iptables", "nftables", "ipvs"} {
			a, errA := renderMode(io.Discard, mode, ptr(model.ForFamily(*orig, fam)), render.Config{Version: render.LatestKubeProxy}, false)
			b, errB := renderMode(io.Discard, mode, ptr(model.ForFamily(*copy, fam)), render.Config{Version: render.LatestKubeProxy}, false)
			if (errA == nil) != (errB == nil) {
				t.Errorf("%s %s: original error %v, anonymised %v", mode, fam, errA, errB)
				continue
			}
			if errA != nil {
				t.Logf("%s %s: not rendered yet: %v", mode, fam, errA)
				continue
			}
			a.Bytes, b.Bytes = 0, 0 // names and addresses have other lengths
			if a != b {
				t.Errorf("%s %s: original %+v, anonymised %+v", mode, fam, a, b)
			}
			compared++
		}
	}
	if compared == 0 {
		t.Fatal("no mode rendered the cluster: nothing compared")
	}
	t.Logf("rule counts equal in %d mode×family renders", compared)
	s, err := scenario.Load(sc)
	if err != nil {
		t.Fatalf("the written scenario: %v", err)
	}
	if s.Synthetic == nil || s.Synthetic.Services != 2*477 || s.Synthetic.Mix == nil {
		t.Fatalf("scenario synthetic %+v, want 2×477 mixed services", s.Synthetic)
	}
	if s.Sweep == nil || len(s.Sweep.Services) != 3 || s.Sweep.Services[2] != 2*477 {
		t.Fatalf("scenario sweep %+v, want a sweep to 2×477 services (what svclab run needs)", s.Sweep)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := renderMode(io.Discard, "iptables", ptr(model.ForFamily(*m, model.IPv4)), render.Config{Version: render.LatestKubeProxy}, false); err != nil {
		t.Errorf("render the scenario: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

func loadModel(t *testing.T, path string) *model.Model {
	t.Helper()
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestImportBadObjects: each bad object is one line on stderr naming the
// file, object and field, exit 2, nothing on stdout.
func TestImportBadObjects(t *testing.T) {
	svc := "apiVersion: v1\nkind: Service\nmetadata: {namespace: default, name: web}\nspec:\n"
	slice := "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {namespace: default, name: web-1, labels: {kubernetes.io/service-name: %s}}\naddressType: IPv4\nendpoints: [{addresses: [\"%s\"]}]\n"
	cases := []struct{ name, raw, want string }{
		{"bad IP", svc + "  clusterIP: 10.0.0.300\n  ports: [{port: 80}]\n", `Service default/web: spec.clusterIP: "10.0.0.300" is not an IP address`},
		{"port range", svc + "  clusterIP: 10.0.0.3\n  ports: [{port: 0}]\n", `Service default/web: spec.ports[0].port: 0 is out of range`},
		{"orphan slice", svc + "  clusterIP: 10.0.0.3\n  ports: [{port: 80}]\n" + strings.ReplaceAll(strings.Replace(slice, "%s", "other", 1), "%s", "10.1.0.1"), `EndpointSlice default/web-1: metadata.labels[kubernetes.io/service-name]: names Service default/other`},
		{"IPv6 in IPv4", svc + "  clusterIP: 10.0.0.3\n  ports: [{port: 80}]\n" + strings.ReplaceAll(strings.Replace(slice, "%s", "web", 1), "%s", "fd00::1"), `EndpointSlice default/web-1: endpoints[0].addresses[0]: fd00::1 is an IPv6 address in an IPv4 slice`},
		{"not YAML or JSON", "\x00\x01kind: [List\n", `document 1 is neither YAML nor JSON`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cluster.yaml")
			if err := os.WriteFile(p, []byte(c.raw), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := dispatch([]string{"import", p}, &stdout, &stderr)
			msg := stderr.String()
			if code != 2 || stdout.Len() != 0 || !strings.Contains(msg, p+": "+c.want) || strings.Count(msg, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, one line with %q", code, stdout.String(), msg, p+": "+c.want)
			}
			code = dispatch([]string{"render", "--scenario", p}, &stdout, &stderr)
			if code != 2 || stdout.Len() != 0 {
				t.Errorf("render --scenario: exit %d, stdout %q", code, stdout.String())
			}
		})
	}
}
