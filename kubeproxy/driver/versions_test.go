package driver

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

// versionFiles are the files one kube-proxy version needs in this module
// (kubeproxy/README.md, "Adding a kube-proxy version"): its modfile, the
// build tag that selects its glue file, and the glue file.
type versionFiles struct {
	modfile, tag, glue string
}

// filesOf derives them from the version: the newest builds with go.mod
// and no tag (its glue file excludes every other version's tag), every
// other version with go.1XX.mod and the tag kp1XX.
func filesOf(v, latest render.KubeProxyVersion, all []render.KubeProxyVersion) versionFiles {
	n := strings.ReplaceAll(string(v), ".", "")
	f := versionFiles{modfile: "go." + n + ".mod", tag: "kp" + n, glue: "glue_" + n + ".go"}
	if v == latest {
		var not []string
		for _, o := range all {
			if o != latest {
				not = append(not, "!kp"+strings.ReplaceAll(string(o), ".", ""))
			}
		}
		f.modfile, f.tag = "go.mod", strings.Join(not, " && ")
	}
	return f
}

// TestVersionFiles checks the module against the version table
// (render.KubeProxyReleases): each row has its modfile pinning the row's
// patch release of k8s.io/kubernetes and the same release of every
// replaced staging module, its go.sum, its glue file behind its build tag
// naming that release, and the Makefile's KP_VERSIONS lists exactly the
// rows; no glue file or modfile is left over from a removed row.
func TestVersionFiles(t *testing.T) {
	rows := render.KubeProxyReleases()
	latest := render.LatestKubeProxy
	want := map[string]bool{}
	for _, r := range rows {
		f := filesOf(r.Version, latest, render.KubeProxyVersions)
		want[f.modfile], want[f.glue] = true, true
		checkModfile(t, r, filepath.Join("..", f.modfile))
		sum := strings.TrimSuffix(f.modfile, ".mod") + ".sum"
		if _, err := os.Stat(filepath.Join("..", sum)); err != nil {
			t.Errorf("kube-proxy %s: %v", r.Version, err)
		}
		checkGlue(t, r, f)
	}
	for _, pattern := range []string{"glue_*.go", "../go*.mod"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if !want[filepath.Base(file)] {
				t.Errorf("%s belongs to no row of the version table (sim/render/version.go)", file)
			}
		}
	}
	checkMakefile(t, filepath.Join("..", "..", "Makefile"))
}

func checkModfile(t *testing.T, r render.KubeProxyRelease, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("kube-proxy %s: %v", r.Version, err)
		return
	}
	text := string(raw)
	if !regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes ` + regexp.QuoteMeta(r.Patch) + `$`).MatchString(text) {
		t.Errorf("%s: does not require k8s.io/kubernetes %s (the row's patch release)", path, r.Patch)
	}
	staging := "v0" + strings.TrimPrefix(r.Patch, "v1")
	for _, m := range regexp.MustCompile(`(?m)^\s*(k8s\.io/\S+) => k8s\.io/\S+ (\S+)$`).FindAllStringSubmatch(text, -1) {
		if m[2] != staging {
			t.Errorf("%s: %s is replaced by %s, want %s (kube-proxy %s's staging release)", path, m[1], m[2], staging, r.Patch)
		}
	}
}

func checkGlue(t *testing.T, r render.KubeProxyRelease, f versionFiles) {
	t.Helper()
	raw, err := os.ReadFile(f.glue)
	if err != nil {
		t.Errorf("kube-proxy %s: %v", r.Version, err)
		return
	}
	text := string(raw)
	if first, _, _ := strings.Cut(text, "\n"); first != "//go:build "+f.tag {
		t.Errorf("%s: first line %q, want %q", f.glue, first, "//go:build "+f.tag)
	}
	if !strings.Contains(text, `const kubeVersion = "`+r.Patch+`"`) {
		t.Errorf("%s: kubeVersion is not %q (the row's patch release)", f.glue, r.Patch)
	}
}

func checkMakefile(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^KP_VERSIONS\s*:=\s*(.*)$`).FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatalf("%s: no KP_VERSIONS", path)
	}
	var want []string
	for _, v := range render.KubeProxyVersions {
		want = append(want, string(v))
	}
	if got := strings.Fields(m[1]); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s: KP_VERSIONS := %s, the version table lists %s", path, strings.Join(got, " "), strings.Join(want, " "))
	}
}

// TestVersionIsARow: the kube-proxy this binary is built with is a row of
// the version table, and the row's patch release is exactly it.
func TestVersionIsARow(t *testing.T) {
	v, err := render.ParseKubeProxyVersion(Version())
	if err != nil {
		t.Fatalf("driver built with %s: %v", Version(), err)
	}
	if p := v.Release().Patch; p != Version() {
		t.Errorf("driver built with %s, the version table's row %s names %s", Version(), v, p)
	}
	if Version() != kubeVersion {
		t.Errorf("build info says %s, the glue file's kubeVersion %s", Version(), kubeVersion)
	}
}
