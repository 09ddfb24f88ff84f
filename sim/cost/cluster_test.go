package cost

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render/iptables"
)

// TestCompositionOfCluster: a real cluster's composition counts what the
// renderers write, and scaling it keeps the fixed part and grows the rest.
func TestCompositionOfCluster(t *testing.T) {
	raw, err := os.ReadFile("../objects/testdata/cluster-500.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o, err := objects.Decode("cluster-500.yaml", raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := CompositionOf("cluster-500.yaml", 1, &model.Model{Cluster: model.DefaultCluster(), Services: o.Services})
	if err != nil {
		t.Fatal(err)
	}
	ipt, nft := c.Modes["iptables"], c.Modes["nftables"]
	if c.Services != o.Services.Len() || c.ServiceRules < c.Services/2 || ipt.Rules <= c.ServiceRules || nft.Elements == 0 || ipt.Bytes == 0 {
		t.Fatalf("composition %+v", c)
	}
	// cluster-500 has IPv6 and dual-stack Services: a payload per family,
	// whose rules add up to the mode's.
	for mode, size := range c.Modes {
		sum := 0
		for _, r := range size.FamilyRules {
			sum += r
		}
		if len(size.FamilyRules) != 2 || sum != size.Rules {
			t.Errorf("%s family rules %v (sum %d), want two adding up to %d", mode, size.FamilyRules, sum, size.Rules)
		}
		// A partial sync restores the largest family's payload alone.
		if p := size.Partial; p == nil || p.Rules != slices.Max(size.FamilyRules) || p.FamilyRules != nil || p.Bytes >= size.Bytes {
			t.Errorf("%s partial sync's family %+v, want the largest of %v, one family, fewer bytes than %d", mode, p, size.FamilyRules, size.Bytes)
		}
	}
	if p := ipt.Partial; p != nil && (p.PartialChainList == nil || p.PartialChainList.Compares >= ipt.PartialChainList.Compares ||
		p.RecentTables >= ipt.RecentTables || p.RecentSync["iptables-legacy"].Incremental >= ipt.RecentSync["iptables-legacy"].Incremental) {
		t.Errorf("iptables partial sync's family walks %+v and %d lists, want fewer than both families' %+v and %d", p.PartialChainList, p.RecentTables, ipt.PartialChainList, ipt.RecentTables)
	}
	double := c.scaled(2 * c.Services)
	fixed, _ := countsOf("iptables", 0, 0)
	if got, want := double.Modes["iptables"].Rules, fixed.Rules+2*(ipt.Rules-fixed.Rules); got != want {
		t.Errorf("scaled ×2 iptables rules %d, want %d", got, want)
	}
	if got, fam := double.Modes["iptables"], ipt.FamilyRules; len(got.FamilyRules) != 2 || got.FamilyRules[0] <= fam[0] || got.FamilyRules[1] <= fam[1] {
		t.Errorf("scaled ×2 iptables family rules %v, from %v: want both grown", got.FamilyRules, fam)
	}
	if got := double.Modes["iptables"].Partial; got == nil || got.Rules != fixed.Rules+2*(ipt.Partial.Rules-fixed.Rules) {
		t.Errorf("scaled ×2 iptables partial sync's family %+v, want its rules doubled from %d", got, ipt.Partial.Rules)
	}
	if double.Scale != 2 {
		t.Errorf("scaled ×2 scale %v", double.Scale)
	}
	if w := double.Walk; w.First != c.Walk.First || w.Last-w.Offset != 2*(c.Walk.Last-c.Walk.Offset) {
		t.Errorf("scaled ×2 walk %+v, from %+v: want the first's kept and the rest doubled", *w, *c.Walk)
	}
	q := Query{Composition: &c, NewConnPerSec: 1}
	m, err := CalibrateDefault(Options{})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := m.Predict(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range preds {
		// Traced, a first packet walks the filter table's REJECT rules of
		// the services without endpoints too: more than half of
		// KUBE-SERVICES.
		if want := c.Walk.Mean - c.Walk.Offset; p.Lookup == LinearWalk && (p.Evaluations != want || want <= float64(c.ServiceRules+1)/2) {
			t.Errorf("%s walks %v rules, want the traced %v, more than (%d+1)/2", p.Dataplane, p.Evaluations, want, c.ServiceRules)
		}
		if p.Ruleset.Rules != c.Modes[p.Ruleset.Mode].Rules {
			t.Errorf("%s ruleset %+v, want the composition's", p.Dataplane, p.Ruleset)
		}
		// The incremental sync is one family's restore: its extrapolation
		// is the partial family's rules over the calibration's.
		dm, _ := m.Dataplane(p.Dataplane)
		if s, part := p.SyncIncremental, c.Modes[p.Ruleset.Mode].Partial; s != nil && s.Extrapolation != float64(part.Rules)/dm.SyncIncremental.MaxRules {
			t.Errorf("%s incremental sync extrapolation %v, want the partial family's %d rules over the calibration's", p.Dataplane, s.Extrapolation, part.Rules)
		}
	}
}

// TestTracedWalkOfCalibrationShape: traced, the first packets to N
// one-port services with an endpoint each (a calibration sweep's shape)
// walk what the calibration counts: the first 1 rule, the last N, on
// average (N+1)/2, whatever N.
func TestTracedWalkOfCalibrationShape(t *testing.T) {
	for _, n := range []int{1, 2, 37, 1000} {
		gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, EndpointsPerService: 1, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		c, err := CompositionOf("synthetic", 1, &model.Model{Cluster: model.DefaultCluster(), Services: gen})
		if err != nil {
			t.Fatal(err)
		}
		for _, pos := range []string{PositionFirst, PositionLast, PositionUniform} {
			got, err := c.evaluations(LinearWalk, pos)
			want, _ := Evaluations(LinearWalk, pos, n)
			if err != nil || got != want {
				t.Errorf("%d services, %s: traced %v rules (%v), want the calibration's %v", n, pos, got, err, want)
			}
		}
	}
}

// TestHoldoutOnRecordedSweep: the holdout check pairs every point above
// MaxN with a prediction and flags targets.
func TestHoldoutOnRecordedSweep(t *testing.T) {
	run, err := DefaultRun()
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := Holdout(run, Options{MaxN: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no holdout rows")
	}
	for _, r := range rows {
		if r.Services <= 10000 || !(r.Measured > 0) || !near(r.Error, r.Predicted.Value/r.Measured-1, 1e-12) {
			t.Errorf("row %+v", r)
		}
	}
	if _, _, err := Holdout(run, Options{}); err == nil {
		t.Error("a holdout without MaxN: want an error")
	}
}

// TestHoldoutKubeProxyOrder: when kube-proxy wrote the rules, a rule walk's
// measured latencies are at kube-proxy's positions, so the holdout leaves
// them out (syncs and map lookups stay) and the model says why.
func TestHoldoutKubeProxyOrder(t *testing.T) {
	for _, engine := range []string{"native", "kube-proxy"} {
		run := synthRun()
		run.Source.Engine = engine
		rows, m, err := Holdout(run, Options{MaxN: 10000})
		if err != nil {
			t.Fatal(err)
		}
		walk, lookup, sync := 0, 0, 0
		for _, r := range rows {
			switch {
			case strings.HasPrefix(r.Figure, "p") && r.Dataplane == "iptables-nft":
				walk++
			case strings.HasPrefix(r.Figure, "p"):
				lookup++
			case strings.Contains(r.Figure, "sync"):
				sync++
			}
		}
		warned := slices.Contains(m.Warnings, kubeProxyOrderWarning)
		if kp := engine == "kube-proxy"; (walk == 0) != kp || warned != kp || lookup == 0 || sync == 0 {
			t.Errorf("engine %s: %d rule-walk latency rows, %d map-lookup rows, %d sync rows, warned %v", engine, walk, lookup, sync, warned)
		}
	}
}

// TestTracedWalkOfAMixConnects: a mix's walk is that of TCP connections to
// ClusterIPs reaching an endpoint, whatever its first and last destination
// in KUBE-SERVICES are: every such first packet is forwarded through the
// filter table's KUBE-EXTERNAL-SERVICES and evaluates the addrtype match of
// each TCP NodePort REJECT there (counted in the rendered payload), none
// of them matching. Mixes with NodePort and LoadBalancer Services with and
// without endpoints, LoadBalancer IPs among the destinations.
func TestTracedWalkOfAMixConnects(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		mix := &model.Mix{Types: []model.Weighted[model.ServiceType]{{Value: model.ClusterIP, Weight: 2}, {Value: model.NodePort, Weight: 1}, {Value: model.LoadBalancer, Weight: 1}},
			Endpoints: []model.Weighted[int]{{Value: 0, Weight: 1}, {Value: 1, Weight: 2}}, Ports: []model.Weighted[int]{{Value: 1, Weight: 2}, {Value: 2, Weight: 1}}}
		gen, err := model.NewGenerator(model.GeneratorConfig{Services: 300, EndpointsPerService: 1, Seed: seed, Mix: mix})
		if err != nil {
			t.Fatal(err)
		}
		m := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
		c, err := CompositionOf("mix", 1, m)
		if err != nil {
			t.Fatal(err)
		}
		var payload strings.Builder
		if _, err := iptables.Render(&payload, m, iptables.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		rejects := 0
		for _, line := range strings.Split(payload.String(), "\n") {
			if strings.HasPrefix(line, "-A KUBE-EXTERNAL-SERVICES ") && strings.Contains(line, " -m addrtype ") && strings.Contains(line, " -p tcp ") {
				rejects++
			}
		}
		w := c.Walk
		if rejects == 0 || w.AddrTypeFirst != float64(rejects) || w.AddrTypeLast != float64(rejects) || w.AddrTypeMean != float64(rejects) {
			t.Errorf("seed %d: addrtype matches first %v, mean %v, last %v; want the payload's %d TCP NodePort REJECTs each",
				seed, w.AddrTypeFirst, w.AddrTypeMean, w.AddrTypeLast, rejects)
		}
		if w.Last < w.Mean || w.Mean < w.First || w.Traced == 0 {
			t.Errorf("seed %d: walk %+v: want first ≤ mean ≤ last", seed, *w)
		}
	}
}
