package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestBadInputExitsTwoWithNothingOnStdout: one clear error naming the file,
// the line and the field, exit code 2, and nothing on stdout.
func TestBadInputExitsTwoWithNothingOnStdout(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"unknown-field.yaml", "unknown-field.yaml:6: colour: unknown field"},
		{"ipv6-clusterip.yaml", `ipv6-clusterip.yaml:5: services[0].clusterIP: "fd00::43" is not an IPv4 address`},
		{"duplicate.yaml", "duplicate.yaml:8: services[1].name: duplicate service ns3/svc3"},
		{"too-many.yaml", "too-many.yaml:7: synthetic.services: 1100000 is out of range"},
		{"port-range.yaml", "port-range.yaml:6: services[0].ports[0].port: 65536 is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch([]string{"render", "--scenario", "testdata/bad/" + tt.file}, &stdout, &stderr)
			if code != 2 || stdout.Len() != 0 {
				t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
				t.Fatalf("stderr %q, want one line containing %q", stderr.String(), tt.want)
			}
		})
	}
}

func TestZeroEndpointsRenderReject(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"render", "--services", "3", "--endpoints", "0"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := strings.Count(stdout.String(), "has no endpoints\" -m tcp -p tcp -d "); got != 3 {
		t.Fatalf("%d REJECT rules, want 3", got)
	}
}

// TestHelpHasExamplesForEveryCommand: `svclab help CMD`, `svclab CMD
// --help` and `svclab CMD -h` print the same usage, with examples, on
// stdout and exit 0, for every command.
func TestHelpHasExamplesForEveryCommand(t *testing.T) {
	for name, c := range commands {
		if c.hidden {
			continue
		}
		var want bytes.Buffer
		if code := dispatch([]string{"help", name}, &want, io.Discard); code != 0 || !strings.Contains(want.String(), "Examples:") {
			t.Errorf("svclab help %s: exit %d, no Examples section:\n%s", name, code, want.String())
		}
		for _, flag := range []string{"--help", "-h"} {
			var stdout, stderr bytes.Buffer
			code := dispatch([]string{name, flag}, &stdout, &stderr)
			if code != 0 || stdout.String() != want.String() || stderr.Len() != 0 {
				t.Errorf("svclab %s %s: exit %d, stderr %q, usage equal to `svclab help %s`: %v", name, flag, code, stderr.String(), name, stdout.String() == want.String())
			}
		}
	}
}

// TestRenderRandomFully: --random-fully=false is a host fact of iptables
// and IPVS mode (kube-proxy's IPVS proxier asks iptables too): releases
// that probe for it then write MASQUERADE without it, v1.37 always with it.
func TestRenderRandomFully(t *testing.T) {
	for _, mode := range []string{"iptables", "ipvs"} {
		for _, tt := range []struct {
			version, flag string
			want          bool
		}{
			{"1.35", "--random-fully=true", true},
			{"1.35", "--random-fully=false", false},
			{"1.37", "--random-fully=false", true},
		} {
			t.Run(mode+"/"+tt.version+tt.flag, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				args := []string{"render", "--mode", mode, "--services", "1", "--kube-proxy-version", tt.version, tt.flag}
				if code := dispatch(args, &stdout, &stderr); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
				masq := ""
				for _, l := range strings.Split(stdout.String(), "\n") {
					if strings.Contains(l, "requiring SNAT") && strings.Contains(l, "-j MASQUERADE") {
						masq = l
					}
				}
				if masq == "" || strings.Contains(masq, "--random-fully") != tt.want {
					t.Errorf("MASQUERADE rule %q, want --random-fully: %v", masq, tt.want)
				}
			})
		}
	}
}
