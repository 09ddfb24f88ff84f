package verifytrace

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"regexp"
	"strconv"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/nfttrace"
)

// markerID is the IP id of the marker packets sent until the monitor
// shows one; after each test packet a marker with IP id 2..9001 shows that
// the test packet's trace is complete (test packets have ids from 10000).
const markerID = 1

// verifyNFT checks an nftables ruleset: loaded with nft -f, traced by
// the kernel (nftrace, read from nft monitor trace) packet by packet.
func verifyNFT(text []byte, meta Meta, opts Options) (Result, error) {
	rs, err := nftables.ParseString(string(text))
	if err != nil {
		return Result{}, &analyze.DumpError{Err: err}
	}
	if err := checkFamily(rs, meta); err != nil {
		return Result{}, err
	}
	prog, err := nfttrace.Compile(rs, nfttrace.Options{LocalAddrs: append(meta.Local, meta.nodeAddr())})
	if err != nil {
		return Result{}, fmt.Errorf("verify-trace: compile the ruleset: %w", err)
	}
	l, err := newLab(meta)
	if err != nil {
		return Result{}, err
	}
	defer l.close()
	if _, err := netns.Output(l.node, text, "nft", "-f", "-"); err != nil {
		return Result{}, fmt.Errorf("load the ruleset: %w", err)
	}
	return traceLoaded(l, prog, meta, nftPool(string(text), meta), opts)
}

// traceLoaded adds the trace table to the loaded node, starts the
// kernel's nft trace monitor and the senders, and compares the packets of
// pool with the tracer's prog.
func traceLoaded(l *lab, prog *nfttrace.Program, meta Meta, pool *pool, opts Options) (Result, error) {
	if _, err := netns.Output(l.node, []byte(traceTable(meta)), "nft", "-f", "-"); err != nil {
		return Result{}, fmt.Errorf("add the trace table: %w", err)
	}
	handles, err := ruleHandles(l.node)
	if err != nil {
		return Result{}, err
	}
	mon, err := startMonitor(l.node, l.lease)
	if err != nil {
		return Result{}, err
	}
	defer mon.stop()
	senders, err := l.senders(meta)
	if err != nil {
		return Result{}, err
	}
	defer senders.close()
	return runNFT(l, prog, handles, mon, senders, pool, markerPacket(meta), opts)
}

// markerPacket is the node's marker packet: to 127.0.0.2, or to ::1 for
// an IPv6 dump (loopback: out and back in on lo, past no other interface).
func markerPacket(m Meta) Packet {
	dst := netip.MustParseAddr("127.0.0.2")
	if m.IPv6 {
		dst = netip.IPv6Loopback()
	}
	return Packet{Src: m.nodeAddr(), Dst: dst, Proto: "udp", SPort: markerID, DPort: 9, FromNode: true}
}

// checkFamily rejects a ruleset whose tables cannot see the packets of
// the header's family (ip6 tables traced with IPv4 packets, or the reverse).
func checkFamily(rs *nftables.Ruleset, m Meta) error {
	want := traceFamily(m)
	for _, t := range rs.Tables {
		if t.Family == want || t.Family == "inet" {
			return nil
		}
	}
	if m.IPv6 {
		return fmt.Errorf("verify-trace: the ruleset has no ip6 or inet table for its IPv6 packets: drop family=ip6 from its \"# verify-trace:\" header")
	}
	return fmt.Errorf("verify-trace: the ruleset has no ip or inet table for its IPv4 packets: add family=ip6 to its \"# verify-trace:\" header if it is IPv6")
}

func runNFT(l *lab, prog *nfttrace.Program, handles map[string]int, mon *monitor, s *senderSet, pool *pool, marker Packet, opts Options) (Result, error) {
	var res Result
	rng := rand.New(rand.NewPCG(opts.Seed, 0x5eed))
	if err := mon.ready(func() error { return s.send(marker) }); err != nil {
		return res, err
	}
	for i := range opts.Packets {
		if err := opts.stopped(); err != nil {
			return res, err
		}
		p := pool.draw(rng, uint16(10000+i%50000))
		if err := s.send(p); err != nil {
			return res, err
		}
		marker.SPort = uint16(2 + i%9000) // unique among the markers still in flight
		if err := s.send(marker); err != nil {
			return res, err
		}
		ev, err := mon.waitFor(p.SPort, marker.SPort)
		if err != nil {
			return res, fmt.Errorf("%v: %w", p, err)
		}
		k := nftOutcome(ev, handles)
		t, err := prog.Trace(nftPacket(p))
		if err != nil {
			return res, fmt.Errorf("trace %v: %w", p, err)
		}
		res.countNFT(p, t, k)
		if p.FromNode || k.verdict != "accept" || i%estEvery != 0 {
			continue
		}
		if err := checkEstablishedNFT(&res, p, l, s, mon, &marker, pool, prog, handles); err != nil {
			return res, err
		}
	}
	return res, nil
}

// replyID is the IP id of the replies that make connections established
// (apart from markers, 1..9998, and test packets, 10000 on); the markers
// after them have ids 9002..9997 (a marker's trace shows up to twice: in
// output and again in prerouting on lo, so each wait has its own id).
const replyID = 9999

// checkEstablishedNFT makes p's connection established (see establish)
// and checks its next packet against nft monitor trace.
func checkEstablishedNFT(res *Result, p Packet, l *lab, s *senderSet, mon *monitor, marker *Packet, pool *pool, prog *nfttrace.Program, handles map[string]int) error {
	m1, m2 := *marker, *marker
	m1.SPort = uint16(9002 + (2*res.Established)%996)
	m2.SPort = m1.SPort + 1
	next, seen, ok, err := l.establish(p, s, pool.local, replyID, func() error {
		if err := s.send(m1); err != nil {
			return err
		}
		_, err := mon.waitFor(replyID, m1.SPort)
		return err
	})
	if err != nil || !ok {
		return err
	}
	if err := s.send(next); err != nil {
		return err
	}
	if err := s.send(m2); err != nil {
		return err
	}
	ev, err := mon.waitFor(next.SPort, m2.SPort)
	if err != nil {
		return fmt.Errorf("%v: %w", next, err)
	}
	tp := nftPacket(next)
	tp.State, tp.Dst, tp.DPort = "established", seen.Addr(), seen.Port()
	t, err := prog.Trace(tp)
	if err != nil {
		return fmt.Errorf("trace %v: %w", next, err)
	}
	res.Established++
	res.countNFT(next, t, nftOutcome(ev, handles))
	return nil
}

func nftPacket(p Packet) trace.Packet {
	return trace.Packet{Src: p.Src, Dst: p.Dst, Proto: p.Proto, DPort: p.DPort, From: fromOf(p), InIface: p.InIface, OutIface: "eth0", Mark: p.Mark}
}

// countNFT records one packet's comparison.
func (res *Result) countNFT(p Packet, t nfttrace.Result, k kernelOutcome) {
	res.Packets++
	switch {
	case t.Verdict == "unknown":
		res.Unknown++
	case nftAgrees(t, k):
		res.Agreed++
	default:
		res.Disagreed++
		if len(res.Examples) < 5 {
			res.Examples = append(res.Examples, fmt.Sprintf("%v: kernel %v; tracer %s %+v", p, k, t.Verdict, t.Outcomes))
		}
	}
}

func fromOf(p Packet) string {
	if p.FromNode {
		return "node"
	}
	return "pod"
}

// nftOutcome turns a packet's trace events into rule hits and a verdict.
func nftOutcome(ev []traceEvent, handles map[string]int) kernelOutcome {
	k := kernelOutcome{rules: counters{}, verdict: "accept"}
	for _, e := range ev {
		if e.verdict == "drop" {
			k.verdict = "drop"
		}
		if e.handle == 0 {
			continue
		}
		pos := handles[fmt.Sprintf("%s %s %d", e.table, e.chain, e.handle)]
		k.rules[ruleID(fmt.Sprintf("%s %s #%d", e.table, e.chain, pos))]++
	}
	return k
}

// nftAgrees reports whether the kernel took one of the predicted outcomes
// (reject shows as drop in the kernel's trace).
func nftAgrees(t nfttrace.Result, k kernelOutcome) bool {
	for _, o := range t.Outcomes {
		v := o.Verdict
		if v == "reject" {
			v = "drop"
		}
		rules := counters{}
		for _, s := range o.Path {
			rules[ruleID(fmt.Sprintf("%s %s #%d", s.Table, s.Chain, s.Index+1))]++
		}
		if string(k.verdict) == v && equalCounters(rules, k.rules) {
			return true
		}
	}
	return false
}

func equalCounters(a, b counters) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

var (
	nftAddr  = regexp.MustCompile(`\b(\d+\.\d+\.\d+\.\d+)(/\d+)?\b`)
	nftAddr6 = regexp.MustCompile(`([0-9a-fA-F]*:[0-9a-fA-F:]*:[0-9a-fA-F]*)(/\d+)?`)
	nftPort  = regexp.MustCompile(`(?:dport|\. (?:tcp|udp) \.|:) (\d+)\b|, (\d+)\b|\{ (\d+)\b`)
	// A "proto . port" key not after an address (service-nodeports,
	// no-endpoint-nodeports), an endpoint "ADDR . port" (v1.36+ numgen
	// DNAT maps) and "[ADDR]:port" (IPv6 dnat to).
	nftPortKey = regexp.MustCompile(`(?:^|[^.] )(?:tcp|udp|sctp) \. (\d+)\b|[0-9a-fA-F] \. (\d+)\b|\]:(\d+)\b`)
)

// nftPool draws packets from the addresses and ports a ruleset names, of
// the dump's family (the other family's addresses are pruned).
func nftPool(text string, m Meta) *pool {
	p := &pool{ipv6: m.IPv6, node: m.nodeAddr(), local: map[netip.Addr]bool{m.nodeAddr(): true}, marks: []uint32{0, 0x4000, 0x8000}}
	for _, a := range m.Local {
		p.local[a] = true
	}
	p.srcs = []netip.Addr{ClientAddr, netip.MustParseAddr("10.244.1.5"), netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("198.51.100.7")}
	p.dsts = append([]netip.Addr{NodeAddr, netip.MustParseAddr("10.1.2.3")}, m.Local...)
	if m.IPv6 {
		p.srcs = []netip.Addr{ClientAddr6, netip.MustParseAddr("fd00:10:244:1::5"), netip.MustParseAddr("2001:db8::9")}
		p.dsts = append([]netip.Addr{NodeAddr6, netip.MustParseAddr("fd00:1:2::3")}, m.Local...)
	}
	p.ports = []uint16{22, 53, 80, 443, 8080, 10250, 30080}
	p.ifaces = append([]string{"eth0"}, m.Ifaces...)
	for _, re := range []*regexp.Regexp{nftAddr, nftAddr6} {
		for _, a := range re.FindAllStringSubmatch(text, -1) {
			addr, err := netip.ParseAddr(a[1])
			if err != nil {
				continue
			}
			if a[2] != "" {
				addr = addr.Next()
			}
			p.dsts, p.srcs = append(p.dsts, addr), append(p.srcs, addr)
		}
	}
	p.ports = append(append(p.ports, nftPorts(text, nftPort)...), nftPorts(text, nftPortKey)...)
	p.prune()
	return p
}

// nftPorts returns the ports re's groups find in text.
func nftPorts(text string, re *regexp.Regexp) []uint16 {
	var ports []uint16
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if n, err := strconv.Atoi(g); err == nil && n > 0 && n < 65536 {
				ports = append(ports, uint16(n))
			}
		}
	}
	return ports
}

// isNFT reports whether a dump is an nftables ruleset.
func isNFT(text []byte) bool {
	return analyze.Detect(text) == analyze.KindNFTables
}
