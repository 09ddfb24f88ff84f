package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Point 10: a verify-trace header error is bad input (exit 2), found
// before any namespace is made.
func TestIssue26Point10VerifyTraceHeaderExit2(t *testing.T) {
	for _, tc := range []struct{ name, header, want string }{
		{"unknown key", "# verify-trace: bogus=1\n", "bogus"},
		{"bad local", "# verify-trace: local=300.1.1.1\n", "300.1.1.1"},
		{"bad family", "# verify-trace: family=ipx\n", "ipx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dump := writeDump(t, "d.rules", tc.header+"*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n")
			out, errOut, code := svclabRun("verify-trace", dump)
			if code != 2 || out != "" || !strings.Contains(errOut, dump) || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "line 1") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and an error naming %s, line 1 and %q", code, out, errOut, dump, tc.want)
			}
		})
	}
}

// Point 10: `run --engine kube-proxy --dataplane ebpf` is refused when the
// scenario is loaded (exit 2), before a run directory exists.
func TestIssue26Point10KubeProxyEngineEBPFRefusedAtLoad(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	_, errOut, code := svclabRun("run", "split-2", "--engine", "kube-proxy", "--dataplane", "ebpf", "--out", out)
	if code != 2 || !strings.Contains(errOut, "ebpf") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming ebpf", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the run directory %s exists (%v): the run was started", out, err)
	}
}
