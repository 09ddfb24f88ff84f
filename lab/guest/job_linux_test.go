package guest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/sim/scenario"
)

// TestJobRoundTrip writes a job as the host does and reads it as the guest
// does: the guest's scenario is the host's (same hash, name, dataplanes and
// connections), for an embedded scenario and a file given by a relative path.
func TestJobRoundTrip(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mine.yaml")
	raw, err := os.ReadFile("../../scenarios/split-2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(file))
	rel := filepath.Base(file)
	n := 300
	for _, tc := range []struct {
		name, source string
		o            Overrides
	}{
		{"embedded, no overrides", "split-2", Overrides{}},
		{"embedded, every override", "split-5", Overrides{Dataplanes: []string{"ipvs", "nftables"}, Connections: &n, Engine: "native", KubeProxyVersion: "1.35"}},
		{"relative path, dataplane", rel, Overrides{Dataplanes: []string{"ipvs"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Load(tc.source)
			if err != nil {
				t.Fatal(err)
			}
			host, err := tc.o.Apply(sc)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path, err := writeJob(dir, newJob(host, tc.o, "svl-3f9a", dir))
			if err != nil {
				t.Fatal(err)
			}
			j, got, err := ReadJob(path)
			if err != nil {
				t.Fatal(err)
			}
			if j.Prefix != "svl-3f9a" || j.OutDir != dir || !filepath.IsAbs(j.Source) && j.Source != host.Source {
				t.Errorf("job = prefix %q, out %q, source %q", j.Prefix, j.OutDir, j.Source)
			}
			if got.Hash() != host.Hash() || got.Name != host.Name {
				t.Errorf("guest scenario %s %s, host %s %s", got.Name, got.Hash(), host.Name, host.Hash())
			}
			if g, h := got.Dataplanes(), host.Dataplanes(); len(g) != len(h) || (len(tc.o.Dataplanes) > 0 && g[0] != tc.o.Dataplanes[0]) {
				t.Errorf("guest dataplanes %v, host %v", g, h)
			}
			if sc.Hash() == host.Hash() && (tc.o.Dataplanes != nil || tc.o.Connections != nil) {
				t.Error("the overrides did not change the hash; the test proves nothing")
			}
		})
	}
}

// TestBadJobs name what is wrong.
func TestBadJobs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content string }{
		{"not json", "{"},
		{"bad scenario", `{"source":"x.yaml","scenario":"` + "bm86IFsK" + `"}`},
		{"bad override", `{"source":"embedded:split-2","scenario":"","overrides":{"dataplanes":["nope"]}}`},
	} {
		path := filepath.Join(dir, tc.name+".json")
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadJob(path); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, _, err := ReadJob(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing job: no error")
	}
}

// TestNeeded: host and uml are taken as said, anything else is bad input.
func TestNeeded(t *testing.T) {
	sc, err := scenario.Load("split-2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kernel  string
		want    bool
		wantErr bool
	}{{"host", false, false}, {"uml", true, false}, {"auto", false, false}, {"kvm", false, true}} {
		got, err := Needed(sc, tc.kernel)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("Needed(split-2, %q) = %v, %v", tc.kernel, got, err)
		}
	}
}
