package ebpf

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestObjectsMatchSource recompiles bpf/svclb.c with the flags of gen.go and
// checks that the committed object and bindings are what the source gives.
// Without clang it skips (even under CI: only `make bpf` needs clang).
func TestObjectsMatchSource(t *testing.T) {
	if _, err := exec.LookPath("clang"); err != nil {
		t.Skip("clang is not installed (only `make bpf` needs it): cannot recompile bpf/svclb.c")
	}
	src, err := os.ReadFile("gen.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^//go:generate go tool bpf2go (.*)$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("gen.go has no bpf2go directive")
	}
	dir := t.TempDir()
	args := append([]string{"tool", "bpf2go", "-output-dir", dir}, strings.Fields(string(m[1]))...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOPACKAGE=ebpf")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, f := range []string{"svclb_bpfel.o", "svclb_bpfel.go"} {
		want, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("committed %s differs from what bpf/svclb.c compiles to: run `make bpf` and commit", f)
		}
	}
}
