package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/migrate"
)

const migrationExample = "../../scenarios/objects/migration-example.yaml"

// TestMigrateExampleGolden: the shipped example's report in each format,
// native engine (no driver needed), and the exit status: 1 when paths
// differ, 0 when none does.
func TestMigrateExampleGolden(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"iptables-nftables.txt", []string{"--from", "iptables", "--to", "nftables"}, 1},
		{"ipvs-nftables.md", []string{"--from", "ipvs", "--to", "nftables", "--format", "markdown"}, 1},
		{"iptables-ipvs.json", []string{"--from", "iptables", "--to", "ipvs", "--json"}, 1},
		{"nftables135-nftables137.txt", []string{"--from", "nftables@1.35", "--to", "nftables@1.37"}, 0},
		{"iptables-nftables-scale.md", []string{"--from", "iptables", "--to", "nftables", "--scale", "10", "--calibration", planCalibration, "--format", "markdown"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"migrate", "--engine", "native", "--node-address", "192.168.100.1"}, tt.args...)
			code := dispatch(append(args, migrationExample), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.wantCode, stderr.String())
			}
			golden.Check(t, filepath.Join("testdata", "migrate", tt.name), stdout.Bytes())
		})
	}
}

// TestMigrateBadInput: usage errors and unreadable input exit 2.
func TestMigrateBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--from", "iptables", migrationExample},
		{"--from", "userspace", "--to", "nftables", migrationExample},
		{"--from", "nftables@1.20", "--to", "nftables", migrationExample},
		{"--from", "iptables", "--to", "nftables", "--format", "yaml", migrationExample},
		{"--from", "iptables", "--to", "nftables", "--to-flag", "nodeport-addresses=banana", migrationExample},
		{"--from", "iptables", "--to", "nftables", "--to-flag", "conntrack=1", migrationExample},
		{"--from", "iptables", "--to", "nftables", "--to-flag", "feature-gates=KubeProxyNFTablesLocalhostNodePorts=true", migrationExample},
		{"--from", "iptables", "--to", "nftables", "no-such-file.yaml"},
		{"--from", "iptables", "--to", "nftables"},
		{"--from", "iptables", "--to", "nftables", "--scale", "0", migrationExample},
		{"--from", "iptables", "--to", "nftables", "--scale", "NaN", migrationExample},
		{"--from", "iptables", "--to", "nftables", "--calibration", "no-such-dir", migrationExample},
	} {
		var stdout, stderr bytes.Buffer
		if code := dispatch(append([]string{"migrate"}, args...), &stdout, &stderr); code != 2 || stdout.Len() != 0 {
			t.Errorf("migrate %v: exit %d, stdout %q, stderr %q; want 2 and nothing on stdout", args, code, stdout.String(), stderr.String())
		}
	}
}

// TestMigrateCostCalibration: the cost beside a migration selects its
// calibration as svclab plan does: another machine's is refused (exit 2)
// unless --allow-other-machine, which says it extrapolates.
func TestMigrateCostCalibration(t *testing.T) {
	other := &cost.Machine{CPUModel: "AMD EPYC", CPUs: 2}
	for _, tt := range []struct {
		name string
		here *cost.Machine
		args []string
		code int
		want string
	}{
		{"same machine", &planCalibrationMachine, nil, 1, "calibration ../../sim/cost/testdata/sweep1"},
		{"other machine refused", other, nil, 2, ""},
		{"other machine allowed", other, []string{"--allow-other-machine"}, 1, "EXTRAPOLATING ACROSS MACHINES"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			withPlanMachine(t, tt.here)
			var stdout, stderr bytes.Buffer
			args := append([]string{"migrate", "--engine", "native", "--from", "iptables", "--to", "nftables", "--calibration", planCalibration}, tt.args...)
			code := dispatch(append(args, migrationExample), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stdout.String(), tt.want) {
				t.Fatalf("exit %d (want %d), want %q in:\n%s\n%s", code, tt.code, tt.want, stdout.String(), stderr.String())
			}
			if code == 2 && (stdout.Len() != 0 || !strings.Contains(stderr.String(), "another machine")) {
				t.Errorf("refused, but stdout %q, stderr %q", stdout.String(), stderr.String())
			}
		})
	}
}

// TestMigrateKubeProxyEngine runs kube-proxy's own code (the drivers make
// kube-proxy builds): a side against itself reports nothing, and every
// difference between the modes on the example and on cluster-500 has a
// known cause.
func TestMigrateKubeProxyEngine(t *testing.T) {
	if os.Getenv("SVCLAB_KUBE_PROXY_DRIVERS") == "" {
		if dir, err := filepath.Abs(filepath.Join("..", "..", "bin")); err == nil {
			t.Setenv("SVCLAB_KUBE_PROXY_DRIVERS", dir)
		}
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("SVCLAB_KUBE_PROXY_DRIVERS"), "kube-proxy-driver-1.37")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the kube-proxy driver is not built: %v", err)
		}
		t.Skipf("the kube-proxy driver is not built (make kube-proxy): %v", err)
	}
	cluster500 := "../../sim/objects/testdata/cluster-500.yaml"
	for _, tt := range []struct {
		from, to, input string
	}{
		{"iptables", "iptables", migrationExample},
		{"nftables", "nftables", migrationExample},
		{"ipvs", "ipvs", migrationExample},
		{"nftables@1.35", "nftables@1.35", cluster500},
		{"iptables", "nftables", cluster500},
		{"ipvs", "nftables", cluster500},
		{"nftables@1.35", "nftables@1.37", cluster500},
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch([]string{"migrate", "--json", "--node-address", "192.168.100.1", "--from", tt.from, "--to", tt.to, tt.input}, &stdout, &stderr)
		if code != 0 && code != 1 {
			t.Fatalf("%s → %s: exit %d: %s", tt.from, tt.to, code, stderr.String())
		}
		var res struct {
			Paths, Differences int
			Classes            []struct {
				Cause  *struct{ ID string }
				Groups []struct{ Kind, Change string }
			}
		}
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		if tt.from == tt.to && res.Differences > 0 {
			t.Errorf("%s → itself on %s: %d differences", tt.from, tt.input, res.Differences)
		}
		for _, c := range res.Classes {
			if c.Cause == nil {
				t.Errorf("%s → %s on %s: unexplained class %+v", tt.from, tt.to, tt.input, c.Groups)
			}
		}
		t.Logf("%s → %s on %s: %d paths, %d differ, %d classes", tt.from, tt.to, filepath.Base(tt.input), res.Paths, res.Differences, len(res.Classes))
	}
}

// TestMigrateHelp has the examples the help promises.
func TestMigrateHelp(t *testing.T) {
	if u := commands["migrate"].usage; !strings.Contains(u, "Examples:") || !strings.Contains(u, "--from iptables --to nftables") {
		t.Errorf("migrate's help lacks its examples:\n%s", u)
	}
}

// TestMigrateVerifyExitCodes: --verify exits 5 when the kernel contradicts
// a class, and keeps migrate's own code when it confirms them; the report
// has the verdicts (a kernel stand-in, so no lab is needed).
func TestMigrateVerifyExitCodes(t *testing.T) {
	saved := verifyKernel
	t.Cleanup(func() { verifyKernel = saved })
	for _, tt := range []struct {
		name     string
		faithful bool
		wantCode int
		want     string
	}{
		{"kernel agrees", true, 1, "CONFIRMED: nodeport-addresses"},
		{"kernel contradicts", false, exitContradicted, "CONTRADICTED: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			verifyKernel = func(_ context.Context, r *migrate.Result, probes []migrate.Probe, _ string, _ io.Writer) ([]migrate.Kernel, error) {
				k := migrate.Kernel{Side: migrate.SideTo, Dataplane: "stand-in", Seen: make([][]migrate.Observation, len(probes))}
				for i, p := range probes {
					o := migrate.Observation{Seen: migrate.SeenTimeout}
					if p.To.Handling == migrate.Served {
						o = migrate.Observation{Seen: migrate.SeenEndpoint, Endpoint: p.To.Endpoints[0].Endpoint, Source: p.Path.Query.Src}
						if p.To.Endpoints[0].Sees == "node" {
							o.Source = netip.MustParseAddr("192.168.99.1")
						}
					}
					switch p.To.Handling {
					case migrate.Rejected:
						o.Seen = migrate.SeenRefused
					case migrate.Untouched:
						o.Seen = migrate.SeenUntouched
					}
					if !tt.faithful {
						o = migrate.Observation{Seen: "failed"}
					}
					k.Seen[i] = []migrate.Observation{o}
				}
				return []migrate.Kernel{k}, nil
			}
			var stdout, stderr bytes.Buffer
			code := dispatch([]string{"migrate", "--verify", "--engine", "native", "--node-address", "192.168.100.1", "--from", "iptables", "--to", "nftables", migrationExample}, &stdout, &stderr)
			if code != tt.wantCode || !strings.Contains(stdout.String(), tt.want) {
				t.Fatalf("exit %d, want %d; report has %q: %v\n%s", code, tt.wantCode, tt.want, strings.Contains(stdout.String(), tt.want), stdout.String())
			}
		})
	}
}
