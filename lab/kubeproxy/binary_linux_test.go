package kubeproxy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

// TestIssue26Point5DriverIsNotTakenFromWorkingDirOrPath: a root svclab
// executes the driver it finds, so it looks only where the user put it on
// purpose: $SVCLAB_KUBE_PROXY_DRIVERS, or next to the svclab binary;
// never ./bin of the working directory or $PATH.
func TestIssue26Point5DriverIsNotTakenFromWorkingDirOrPath(t *testing.T) {
	name := BinaryName(render.KubeProxyVersion(""))
	dir := t.TempDir()
	plant := func(d string) string {
		t.Helper()
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plant(filepath.Join(dir, "bin"))
	inPath := plant(filepath.Join(dir, "path"))
	t.Chdir(dir)
	t.Setenv("PATH", filepath.Join(dir, "path"))
	t.Setenv(DirEnv, "")
	if p, err := Find(""); err == nil {
		t.Fatalf("Find took %s from the working directory or PATH", p)
	}
	t.Setenv(DirEnv, filepath.Join(dir, "path"))
	if p, err := Find(""); err != nil || p != inPath {
		t.Fatalf("with %s set: %q, %v; want %s", DirEnv, p, err, inPath)
	}
	t.Setenv(DirEnv, "")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(filepath.Dir(exe), name)
	if _, err := os.Stat(beside); err == nil {
		t.Skipf("%s exists already", beside)
	}
	plant(filepath.Dir(exe))
	t.Cleanup(func() { os.Remove(beside) })
	if p, err := Find(""); err != nil || p != beside {
		t.Fatalf("next to the executable: %q, %v; want %s", p, err, beside)
	}
}
