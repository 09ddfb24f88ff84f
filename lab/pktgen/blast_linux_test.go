package pktgen

import (
	"context"
	"errors"
	"net/netip"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/netns"
)

// TestBlastForwardsNewFlows sends 20,000 SYNs at a two-pod service as fast
// as the socket takes them and checks that the pods together saw at least
// 95% of them as new flows, and that the split reached both.
func TestBlastForwardsNewFlows(t *testing.T) {
	f := newLabFixture(t, 2)
	const packets = 20000
	res, err := Blast(context.Background(), f.blastSpec(packets))
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent+res.Dropped != packets || res.RepeatedTuples != 0 || res.Flushes != 1 {
		t.Fatalf("result %+v: want %d offered, no repeated tuples, 1 flush", res, packets)
	}
	counts := waitForSettled(t, f)
	total := counts[0] + counts[1]
	t.Logf("sent %d (%d dropped) in %s: %.0f pkt/s; pods saw %v SYNs", res.Sent, res.Dropped, res.Elapsed, res.PPS, counts)
	if total < packets*95/100 || total > packets {
		t.Errorf("pods saw %d SYNs, want between 95%% of %d and %d", total, packets, packets)
	}
	for i, n := range counts {
		if n < total/10 {
			t.Errorf("pod %d saw %d of %d SYNs: the split did not reach it", i, n, total)
		}
	}
}

// TestBlastFlushesConntrack reuses a 500-port range for 2,000 SYNs to a pod
// that never answers, so the node's conntrack entries stay: with the flush
// hook every SYN traverses the nat table (the DNAT rule counts all of
// them); without it the repeats reuse their entries and skip the rule, and
// Blast reports them.
func TestBlastFlushesConntrack(t *testing.T) {
	f := newLabFixture(t, 1)
	f.silencePods(t)
	const packets = 2000
	spec := f.blastSpec(packets)
	spec.SrcPorts = PortRange{First: 2000, Last: 2499}
	spec.Rate = 100000

	before := dnatPackets(t, f)
	res, err := Blast(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	waitForSettled(t, f)
	if got := dnatPackets(t, f) - before; got != packets || res.RepeatedTuples != 0 || res.Flushes != 5 {
		t.Errorf("with flush: DNAT rule counted %d, result %+v; want %d, no repeats, 5 flushes", got, res, packets)
	}

	if err := FlushConntrackIn(f.topo.NodeNetns)(); err != nil {
		t.Fatal(err)
	}
	spec.FlushConntrack = nil
	before = dnatPackets(t, f)
	if res, err = Blast(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	waitForSettled(t, f)
	got := dnatPackets(t, f) - before
	usage, err := ConntrackUsage(f.topo.NodeNetns)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("without flush: DNAT rule counted %d of %d, conntrack %+v", got, packets, usage)
	if got != 500 || res.RepeatedTuples != packets-500 || res.Flushes != 0 {
		t.Errorf("without flush: DNAT rule counted %d, result %+v; want 500, %d repeated tuples, 0 flushes", got, res, packets-500)
	}
	if usage.Count < 500 || usage.Max <= usage.Count {
		t.Errorf("conntrack usage %+v: want at least the 500 tuples below the max", usage)
	}
}

// TestBlastHonoursDurationAndRate bounds a paced blast by time alone.
func TestBlastHonoursDurationAndRate(t *testing.T) {
	f := newLabFixture(t, 1)
	spec := f.blastSpec(0)
	spec.Duration, spec.Rate = 200*time.Millisecond, 10000
	res, err := Blast(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Elapsed < spec.Duration || res.Elapsed > spec.Duration+50*time.Millisecond {
		t.Errorf("elapsed %s, want about %s", res.Elapsed, spec.Duration)
	}
	if res.Sent < 1500 || res.Sent > 2100 {
		t.Errorf("sent %d in %s at %g pkt/s, want about 2000", res.Sent, res.Elapsed, spec.Rate)
	}
}

// TestBlastStopsOnCancel cancels a long blast and expects the partial
// result with the context's error.
func TestBlastStopsOnCancel(t *testing.T) {
	f := newLabFixture(t, 1)
	spec := f.blastSpec(0)
	spec.Duration, spec.Rate = time.Minute, 10000
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := Blast(ctx, spec)
	if !errors.Is(err, context.DeadlineExceeded) || res.Sent == 0 || res.Elapsed > time.Second {
		t.Errorf("cancelled blast: %+v, %v; want some packets and %v", res, err, context.DeadlineExceeded)
	}
}

// dnatPackets reads the packet counter of the fixture's DNAT rules in the
// node's nat table.
func dnatPackets(t testing.TB, f *labFixture) int {
	t.Helper()
	out, err := netns.Output(f.topo.NodeNetns, nil, "iptables-nft-save", "-c", "-t", "nat")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, m := range dnatCounter.FindAllSubmatch(out, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		total += n
	}
	return total
}

var dnatCounter = regexp.MustCompile(`(?m)^\[(\d+):\d+\] -A ` + svcChain + ` .*-j DNAT`)

// waitForSettled polls the pods' SYN counters until two readings agree, so
// packets still in a backlog are counted, and returns the last reading.
func waitForSettled(t testing.TB, f *labFixture) []uint64 {
	t.Helper()
	prev := f.synCounts(t)
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		cur := f.synCounts(t)
		if equalCounts(prev, cur) {
			return cur
		}
		prev = cur
	}
	t.Fatalf("SYN counters still moving: %v", prev)
	return nil
}

func equalCounts(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBlastSpreadsOverTargets sends to two services, each DNATed to its
// own pod, round-robin and at random, and checks each pod's share; it also
// checks RxCounter against the SYN counts.
func TestBlastSpreadsOverTargets(t *testing.T) {
	f := newLabFixture(t, 2)
	second := netip.AddrPortFrom(netip.MustParseAddr("10.96.0.11"), 80)
	rules := "*nat\n:PREROUTING ACCEPT [0:0]\n" +
		"-A PREROUTING -d " + service.Addr().String() + "/32 -p tcp --dport 80 -j DNAT --to-destination " + f.topo.Pods[0].IP.String() + ":8080\n" +
		"-A PREROUTING -d " + second.Addr().String() + "/32 -p tcp --dport 80 -j DNAT --to-destination " + f.topo.Pods[1].IP.String() + ":8080\n" +
		"COMMIT\n"
	if _, err := netns.Output(f.topo.NodeNetns, []byte(rules), "iptables-nft-restore"); err != nil {
		t.Fatal(err)
	}
	rx, err := RxCounter(f.topo.Pods[1].Netns, "eth0")
	if err != nil {
		t.Fatal(err)
	}
	const packets = 2000
	for _, random := range []bool{false, true} {
		before := waitForSettled(t, f)
		rx0, err := rx()
		if err != nil {
			t.Fatal(err)
		}
		spec := f.blastSpec(packets)
		spec.Targets = append(spec.Targets, second)
		spec.Random, spec.Seed = random, 7
		if _, err := Blast(context.Background(), spec); err != nil {
			t.Fatal(err)
		}
		after := waitForSettled(t, f)
		rx1, err := rx()
		if err != nil {
			t.Fatal(err)
		}
		first, other := after[0]-before[0], after[1]-before[1]
		t.Logf("random=%v: pods saw %d and %d SYNs; pod 1 rx_packets +%d", random, first, other, rx1-rx0)
		if first+other != packets || (!random && first != other) || first < packets/3 || other < packets/3 {
			t.Errorf("random=%v: pods saw %d and %d of %d SYNs", random, first, other, packets)
		}
		if rx1-rx0 < other {
			t.Errorf("random=%v: pod 1 rx_packets grew %d, fewer than its %d SYNs", random, rx1-rx0, other)
		}
	}
}
