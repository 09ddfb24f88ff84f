package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/buildinfo"
)

// fakeDrivers stands for a machine with the 1.37 driver built and the
// 1.35 one missing.
func fakeDrivers() []buildinfo.Driver {
	return []buildinfo.Driver{
		{KubeProxy: "1.35", Error: "kube-proxy 1.35: kube-proxy-driver-1.35 not found in [bin] or PATH: kube-proxy driver not built (run `make kube-proxy`)"},
		{KubeProxy: "1.37", Path: "/usr/local/bin/kube-proxy-driver-1.37", Version: "v1.37.2"},
	}
}

// stamp sets the build stamps and the driver finder for one test.
func stamp(t *testing.T, version, commit string, drivers func() []buildinfo.Driver) {
	t.Helper()
	oldV, oldC, oldD := buildinfo.Version, buildinfo.Commit, kubeProxyDrivers
	buildinfo.Version, buildinfo.Commit, kubeProxyDrivers = version, commit, drivers
	t.Cleanup(func() { buildinfo.Version, buildinfo.Commit, kubeProxyDrivers = oldV, oldC, oldD })
}

func TestVersionText(t *testing.T) {
	tests := []struct {
		name    string
		drivers func() []buildinfo.Driver
		want    []string
	}{
		{"linux with one driver", fakeDrivers, []string{
			"svclab     v0.3.0\n",
			"commit     0123456789ab-dirty\n",
			"go         " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n",
			"kube-proxy 1.35  missing: kube-proxy-driver-1.35 not found in [bin] or PATH: kube-proxy driver not built (run `make kube-proxy`)\n",
			"kube-proxy 1.37  v1.37.2 (/usr/local/bin/kube-proxy-driver-1.37)\n",
		}},
		{"off linux", nil, []string{"svclab     v0.3.0\n", "kube-proxy drivers: Linux only\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stamp(t, "v0.3.0", "0123456789ab-dirty", tt.drivers)
			var stdout, stderr bytes.Buffer
			if code := dispatch([]string{"version"}, &stdout, &stderr); code != 0 || stderr.Len() != 0 {
				t.Fatalf("svclab version: exit %d, stderr %q", code, stderr.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("svclab version printed\n%s\nwant a line %q", stdout.String(), w)
				}
			}
		})
	}
}

func TestVersionJSON(t *testing.T) {
	stamp(t, "v0.3.0", "0123456789ab", fakeDrivers)
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"version", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("svclab version --json: exit %d, stderr %q", code, stderr.String())
	}
	var got versionReport
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("svclab version --json is not a version report: %v", err)
	}
	want := versionReport{
		Info:             buildinfo.Info{Version: "v0.3.0", Commit: "0123456789ab", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH},
		KubeProxyDrivers: fakeDrivers(),
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("svclab version --json =\n%s\nwant\n%s", gotJSON, wantJSON)
	}
}

func TestVersionUsage(t *testing.T) {
	for _, args := range [][]string{{"version", "extra"}, {"version", "--nosuch"}} {
		var stdout, stderr bytes.Buffer
		if code := dispatch(args, &stdout, &stderr); code != 2 {
			t.Errorf("svclab %s: exit %d, want 2 (stderr %q)", strings.Join(args, " "), code, stderr.String())
		}
	}
}

// TestVersionStampedByLdflags builds svclab with the Makefile's -X flags
// (the variable paths are strings the compiler does not check) and runs
// the binary's version --json.
func TestVersionStampedByLdflags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds svclab; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "svclab")
	const pkg = "github.com/svclab/svclab/sim/buildinfo"
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-X "+pkg+".Version=v9.8.7 -X "+pkg+".Commit=cafe0123beef", ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("%s version --json: %v", bin, err)
	}
	var got versionReport
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("version --json: %v\n%s", err, out)
	}
	if got.Version != "v9.8.7" || got.Commit != "cafe0123beef" {
		t.Errorf("stamped binary says version %q commit %q, want v9.8.7 cafe0123beef", got.Version, got.Commit)
	}
}
