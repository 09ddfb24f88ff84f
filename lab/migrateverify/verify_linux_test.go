package migrateverify

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/sim/migrate"
	"github.com/svclab/svclab/sim/migrate/migratetest"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/scenario"
)

var other = migrate.Node{Other: []netip.Addr{netip.MustParseAddr("192.168.100.1")}}

func requireLab(t *testing.T) {
	t.Helper()
	labtest.RequireRoot(t)
	for _, tool := range []string{"ip", "sysctl", "iptables-legacy-restore", "iptables-nft-restore", "nft"} {
		labtest.RequireBinary(t, tool)
	}
}

func side(t *testing.T, s string) migrate.Side {
	t.Helper()
	sd, err := migrate.ParseSide(s)
	if err != nil {
		t.Fatal(err)
	}
	return sd
}

// verify compares, sends the probes through the kernel and judges.
func verify(t *testing.T, in migrate.Input, engine string, opts Options) *migrate.Verification {
	t.Helper()
	r, err := migrate.Compare(in)
	if err != nil {
		t.Fatal(err)
	}
	probes := migrate.VerifyProbes(r)
	opts.Engine = engine
	kernels, err := Verify(context.Background(), r, probes, opts)
	if err != nil {
		t.Fatal(err)
	}
	return migrate.Judge(r, probes, kernels)
}

// exampleModel is the shipped migration example.
func exampleModel(t *testing.T) *model.Model {
	t.Helper()
	sc, err := scenario.Load("../../scenarios/objects/migration-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sc.ModelWith(0, 0, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestExampleConfirmed: every class of the shipped example's iptables →
// nftables migration, and its controls, are confirmed by the kernel
// through iptables-legacy, iptables-nft and nftables, with kube-proxy's
// own proxiers programming the nodes (svclab's renderers when the drivers
// are not built).
func TestExampleConfirmed(t *testing.T) {
	requireLab(t)
	engine := scenario.EngineKubeProxy
	if _, err := kubeproxy.Find(""); err != nil {
		engine = scenario.EngineNative
		t.Logf("kube-proxy drivers not built (%v): svclab's renderers program the nodes", err)
	}
	rules := migrate.NativeRules
	if engine == scenario.EngineKubeProxy {
		rules = kubeproxy.MigrateRules
	}
	v := verify(t, migrate.Input{Model: exampleModel(t), From: side(t, "iptables"), To: side(t, "nftables"), Node: other, Rules: rules}, engine, Options{})
	requireConfirmed(t, v, 4)
}

// requireConfirmed fails unless v has at least n verdicts (the classes
// and the controls), all CONFIRMED.
func requireConfirmed(t *testing.T, v *migrate.Verification, n int) {
	t.Helper()
	if len(v.Verdicts) < n {
		t.Fatalf("%d verdicts, want %d: the classes and the controls", len(v.Verdicts), n)
	}
	for _, d := range v.Verdicts {
		if d.State != migrate.Confirmed {
			t.Errorf("%s: %s: %s", d.Class, d.State, d.Reason)
		}
	}
}

// TestRandomClustersAgreeWithKernel is the property test: on seeded random
// clusters, the tracer's outcome of randomly drawn paths (and of each
// difference class's examples and the controls) agrees with the kernel's
// for every mode the lab runs: iptables through iptables-legacy and
// iptables-nft, and nftables; over IPv4 and IPv6 paths.
func TestRandomClustersAgreeWithKernel(t *testing.T) {
	requireLab(t)
	for seed := uint64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			m, err := migratetest.RandomCluster(seed, 16)
			if err != nil {
				t.Fatal(err)
			}
			in := migrate.Input{Model: m, From: side(t, "iptables"), To: side(t, "nftables"), Node: other, Rules: migrate.NativeRules, Sample: 30, SampleSeed: seed}
			v := verify(t, in, scenario.EngineNative, Options{Connections: 2, Timeout: 600 * time.Millisecond})
			checked := 0
			tally := map[string]int{}
			for _, d := range v.Verdicts {
				for _, c := range d.Checks {
					if c.Sent {
						checked++
						tally[fmt.Sprintf("%s %s agree=%v", c.Path.Family, c.Tracer.Handling, c.Agree)]++
					}
				}
				if d.State == migrate.Contradicted {
					t.Errorf("%s: %s", d.Class, d.Reason)
				}
			}
			if checked < 30 {
				t.Errorf("only %d checks were sent", checked)
			}
			ipv6 := 0
			for k, n := range tally {
				if strings.HasPrefix(k, model.IPv6.String()+" ") {
					ipv6 += n
				}
			}
			if ipv6 < 10 {
				t.Errorf("only %d IPv6 checks were sent (%v)", ipv6, tally)
			}
			t.Logf("%d checks sent through the kernel: %v", checked, tally)
		})
	}
}
