package pktgen

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/topo"
)

// serviceIP:servicePort is the one service the fixture's node DNATs.
var (
	service  = netip.MustParseAddrPort("10.96.0.10:80")
	podPort  = uint16(8080)
	svcChain = "SVLTEST-SVC"
)

// labFixture is a built topology whose node DNATs service to every pod,
// with a SynCounter on each pod's eth0.
type labFixture struct {
	topo     *topo.Topology
	counters []*SynCounter
}

// newLabFixture builds a topology with the given number of pods and an
// iptables-nft DNAT rule splitting service evenly among them. Everything is
// removed when the test ends.
func newLabFixture(t testing.TB, pods int) *labFixture {
	t.Helper()
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "iptables-nft-restore")
	spec := topo.Spec{Prefix: topo.NewPrefix()}
	for i := range pods {
		spec.Pods = append(spec.Pods, topo.Pod{IP: netip.AddrFrom4([4]byte{10, 244, byte(i + 1), 10})})
	}
	tp, err := topo.Build(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	f := &labFixture{topo: tp}
	t.Cleanup(func() {
		for _, c := range f.counters {
			if err := c.Close(); err != nil {
				t.Error(err)
			}
		}
		if err := tp.Close(); err != nil {
			t.Errorf("close topology: %v", err)
		}
	})
	if _, err := netns.Output(tp.NodeNetns, []byte(dnatRules(tp.Pods)), "iptables-nft-restore"); err != nil {
		t.Fatal(err)
	}
	for _, p := range tp.Pods {
		c, err := NewSynCounter(p.Netns, "eth0")
		if err != nil {
			t.Fatal(err)
		}
		f.counters = append(f.counters, c)
	}
	return f
}

// silencePods makes every pod drop incoming SYNs after the SYN counter has
// seen them, so the node's conntrack entries stay in SYN_SENT instead of
// being deleted at once when a pod answers with an RST.
func (f *labFixture) silencePods(t testing.TB) {
	t.Helper()
	const rules = "*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --syn -j DROP\nCOMMIT\n"
	for _, p := range f.topo.Pods {
		if _, err := netns.Output(p.Netns, []byte(rules), "iptables-nft-restore"); err != nil {
			t.Fatal(err)
		}
	}
}

// dnatRules is an iptables-restore script that DNATs service to the pods
// with kube-proxy's statistic split.
func dnatRules(pods []topo.PodNetns) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*nat\n:PREROUTING ACCEPT [0:0]\n:%s - [0:0]\n", svcChain)
	fmt.Fprintf(&b, "-A PREROUTING -d %s/32 -p tcp --dport %d -j %s\n", service.Addr(), service.Port(), svcChain)
	for i, p := range pods {
		b.WriteString("-A " + svcChain)
		if left := len(pods) - i; left > 1 {
			fmt.Fprintf(&b, " -m statistic --mode random --probability %.11f", 1/float64(left))
		}
		fmt.Fprintf(&b, " -p tcp -j DNAT --to-destination %s:%d\n", p.IP, podPort)
	}
	b.WriteString("COMMIT\n")
	return b.String()
}

// blastSpec is a blast of packets SYNs at the service from the client pod.
func (f *labFixture) blastSpec(packets int) Spec {
	return Spec{
		ClientNetns:    f.topo.ClientNetns,
		Targets:        []netip.AddrPort{service},
		Packets:        packets,
		FlushConntrack: FlushConntrackIn(f.topo.NodeNetns),
	}
}

// synCounts reads every pod's SYN counter.
func (f *labFixture) synCounts(t testing.TB) []uint64 {
	t.Helper()
	counts := make([]uint64, len(f.counters))
	for i, c := range f.counters {
		n, err := c.Count()
		if err != nil {
			t.Fatal(err)
		}
		counts[i] = n
	}
	return counts
}

// forwarded sums the pods' SYN counters.
func (f *labFixture) forwarded() func() (uint64, error) {
	var counts []func() (uint64, error)
	for _, c := range f.counters {
		counts = append(counts, c.Count)
	}
	return SumCounts(counts...)
}
