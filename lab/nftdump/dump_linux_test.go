package nftdump

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/results"
)

// TestChainsPayloadIsTheRulesets checks that the chains Measure loads are
// as many as sim/cost prices a dump of for the same ruleset.
func TestChainsPayloadIsTheRulesets(t *testing.T) {
	for _, services := range []int{1, 100, 2500} {
		payload, chains, err := chainsPayload(services)
		if err != nil {
			t.Fatal(err)
		}
		size, err := cost.RulesetSize("nftables", services, 1)
		if err != nil {
			t.Fatal(err)
		}
		if chains != size.Chains || bytes.Count(payload, []byte("add chain "))-bytes.Count(payload, []byte("delete chain ")) != chains {
			t.Errorf("%d services: %d chains loaded, sim/cost counts %d", services, chains, size.Chains)
		}
	}
}

func TestPaddingPayloads(t *testing.T) {
	create, punch := paddingPayloads(1000, 4)
	made, deleted := bytes.Count(create, []byte("add chain ")), bytes.Count(punch, []byte("delete chain "))
	if made != 4400 || deleted != 1100 {
		t.Errorf("padding of 1,000 chains, every 4th deleted: %d made, %d deleted; want 4,400 and 1,100", made, deleted)
	}
}

// TestKernelWalksTheStepsSimCounts dumps a table's chains from the kernel
// with both buffers and checks that the steps the kernel walked to resume
// each message are the ones sim/cost.ChainDumpSteps counts.
func TestKernelWalksTheStepsSimCounts(t *testing.T) {
	labtest.RequireBinary(t, "nft")
	ns := labtest.ScratchNetns(t)
	payload, chains, err := chainsPayload(6000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := netns.Output(ns, payload, "nft", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	for _, buf := range []int{NftReceiveBuffer, SmallReceiveBuffer} {
		var r Dump
		if err := netns.Do(ns, func() (err error) { r, err = DumpChains(buf); return err }); err != nil {
			t.Fatal(err)
		}
		want := cost.ChainDumpSteps(r.Chains, r.PerMessage())
		if r.Chains != chains || math.Abs(float64(r.Walk)-want) > 0.02*want {
			t.Errorf("buffer %d: %d chains in %d messages (%.1f a message) walked %d steps; loaded %d, sim counts %.0f",
				buf, r.Chains, r.Messages, r.PerMessage(), r.Walk, chains, want)
		}
	}
}

func TestMeasure(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "nft")
	prefix := labtest.LeasedPrefix(t)
	steps, err := Measure(context.Background(), Options{Services: []int{12_000}, Rounds: 2, Every: 4, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].Layout != results.ChainDumpPacked || steps[1].Layout != results.ChainDumpSpread {
		t.Fatalf("steps %+v: want one packed, one spread", steps)
	}
	for _, s := range steps {
		if s.Chains < 12_000 || s.ChainsPerMessage < 2 || s.MinNsPerStep <= 0 || s.MaxNsPerStep < s.NsPerStep || s.NsPerStep < s.MinNsPerStep {
			t.Errorf("step %+v: want the chains, chains a message and a positive ns range", s)
		}
	}
	for _, name := range []string{prefix + "-nftdump", prefix + "-nftpad"} {
		if netns.Exists(name) {
			t.Errorf("namespace %s left behind", name)
		}
	}
}

func TestMeasureRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{{}, {Prefix: "svl-x", Rounds: 1, Every: 1, Services: []int{10}}, {Prefix: "svl-x", Rounds: 1, Every: 4, Services: []int{0}}} {
		if _, err := Measure(context.Background(), o); err == nil {
			t.Errorf("Measure(%+v) = nil error", o)
		}
	}
}
