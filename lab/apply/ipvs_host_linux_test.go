package apply

import (
	"errors"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// TestIPVSFullSyncInNetns runs FullSync and Reset in a scratch namespace
// of this host: ipset and iptables-legacy for real, the IPVS table and
// kube-ipvs0 faked (this kernel has neither IPVS nor the dummy driver).
func TestIPVSFullSyncInNetns(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "ipset")
	labtest.RequireBinary(t, "iptables-legacy-restore")
	ns := labtest.ScratchNetns(t)
	d, fake, links := fakeIPVSDataplane(ns, ipvs.DefaultOptions())
	a := twoEndpointService("a", "10.96.0.10", "10.244.0.2", "10.244.0.3")
	b := twoEndpointService("b", "10.96.0.11", "10.244.0.4")
	for round := 1; round <= 2; round++ { // the second sync must change nothing
		sync, err := d.FullSync(t.Context(), ipvsTestModel(a, b))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if sync.Duration <= 0 || sync.Payload.Rules != 5 || sync.Payload.Chains != 2 || sync.Payload.Sets != 17 {
			t.Errorf("round %d: sync = %+v, want 2 virtual + 3 real servers, 17 sets", round, sync)
		}
		if got := ipsetEntries(t, ns, "KUBE-CLUSTER-IP"); got != 2 {
			t.Errorf("round %d: KUBE-CLUSTER-IP has %d members, want 2", round, got)
		}
		saved := iptablesSave(t, d)
		if n := strings.Count(saved, "-A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"); n != 1 {
			t.Errorf("round %d: %d PREROUTING jumps, want 1", round, n)
		}
		if !strings.Contains(saved, "-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT") {
			t.Errorf("round %d: KUBE-SERVICES rules missing:\n%s", round, saved)
		}
		if len(fake.services) != 2 || fake.realServers() != 3 || len(links.addrs) != 2 {
			t.Errorf("round %d: %d virtual, %d real servers, %d bound addresses; want 2, 3, 2", round, len(fake.services), fake.realServers(), len(links.addrs))
		}
	}
	fake.calls = nil
	ep := model.Endpoint{IP: netip.MustParseAddr("10.244.0.5"), Ready: true, Node: "node-1"}
	if _, err := d.Apply(t.Context(), ipvsTestModel(a, b), Change{Service: 1, Endpoint: ep}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fake.calls, ","); got != "add 10.96.0.11:80 -> 10.244.0.5:8080" {
		t.Errorf("incremental sync made IPVS calls %q, want the one new real server", got)
	}
	if got := ipsetEntries(t, ns, "KUBE-LOOP-BACK"); got != 4 {
		t.Errorf("KUBE-LOOP-BACK has %d members after adding a local endpoint, want 4", got)
	}
	if _, err := d.FullSync(t.Context(), ipvsTestModel(a)); err != nil {
		t.Fatal(err)
	}
	if got := ipsetEntries(t, ns, "KUBE-CLUSTER-IP"); got != 1 || len(links.addrs) != 1 || len(fake.services) != 1 {
		t.Errorf("after dropping a service: %d set members, %d addresses, %d virtual servers; want 1 each", got, len(links.addrs), len(fake.services))
	}
	if err := d.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if sets, _ := netns.Output(ns, nil, "ipset", "list", "-n"); len(sets) != 0 || len(fake.services) != 0 || links.exists {
		t.Errorf("after Reset: sets %q, %d virtual servers, kube-ipvs0 exists %v", sets, len(fake.services), links.exists)
	}
	if saved := iptablesSave(t, d); strings.Contains(saved, "KUBE-") {
		t.Errorf("after Reset, iptables still holds kube-proxy chains:\n%s", saved)
	}
	if err := d.Reset(t.Context()); err != nil {
		t.Errorf("second Reset: %v", err)
	}
}

// TestNewIPVSWithoutKernelIPVS: on a kernel without IPVS (this host)
// NewIPVS says so with ErrNoIPVS; on one with IPVS it connects.
func TestNewIPVSWithoutKernelIPVS(t *testing.T) {
	ns := labtest.ScratchNetns(t)
	d, err := NewIPVS(ns, ipvs.DefaultOptions())
	switch {
	case errors.Is(err, ErrNoIPVS):
		t.Logf("as expected on this kernel: %v", err)
	case err != nil:
		t.Fatalf("NewIPVS = %v, want nil or ErrNoIPVS", err)
	default:
		if err := d.Reset(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := NewIPVS(ns, ipvs.Options{Scheduler: "fastest"}); err == nil {
		t.Error("NewIPVS accepted an unknown scheduler")
	}
}

func ipsetEntries(t *testing.T, ns, set string) int {
	t.Helper()
	out, err := netns.Output(ns, nil, "ipset", "list", "-t", set)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Number of entries: (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("ipset list -t %s:\n%s", set, out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func iptablesSave(t *testing.T, d *IPVS) string {
	t.Helper()
	out, err := d.IPTables.Save("nat", "filter")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
