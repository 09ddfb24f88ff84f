package iptrace

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/trace"
)

// TestMemoMatchesWalk checks that replaying memoized stages changes
// nothing but speed: over the real-node corpus of lab/verifytrace, this
// package's dumps and a generated kube-proxy dump, random packets drawn
// from the addresses, ports and marks each dump names trace exactly as
// with the memo switched off, on the first trace of a key and on replays.
func TestMemoMatchesWalk(t *testing.T) {
	files, _ := filepath.Glob("../../../lab/verifytrace/testdata/*.rules")
	local, _ := filepath.Glob("testdata/*.rules")
	files = append(files, local...)
	dumps := map[string]string{"generated": generateServices(30, 3)}
	for _, f := range files {
		if !strings.Contains(f, "unquoted") { // refused, as iptables-restore refuses it
			dumps[filepath.Base(f)] = string(readFile(t, f))
		}
	}
	memoized := 0
	for name, text := range dumps {
		t.Run(name, func(t *testing.T) {
			d, err := iptables.ParseString(text)
			if err != nil {
				t.Fatal(err)
			}
			addrs, ports := dumpAddrs(text), dumpPorts(text)
			opts := Options{LocalAddrs: addrs[:min(2, len(addrs))]}
			memo, plain := mustTracer(t, d, opts), mustTracer(t, d, opts)
			plain.memoOK = [stageDone]bool{}
			for _, ok := range memo.memoOK {
				if ok {
					memoized++
				}
			}
			rng := rand.New(rand.NewPCG(7, uint64(len(text))))
			for i := range 600 {
				p := randomPacket(rng, addrs, ports)
				want, werr := plain.Trace(p)
				got, gerr := memo.Trace(p)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) || describe(got) != describe(want) {
					t.Fatalf("packet %d %v: memoized trace differs:\n%s\nwant:\n%s", i, p, describe(got), describe(want))
				}
			}
		})
	}
	if memoized == 0 {
		t.Error("no stage of any dump was memoized: the test checks nothing")
	}
}

// describe is everything a Trace says, paths included.
func describe(tr Trace) string {
	var b strings.Builder
	b.WriteString(tr.String())
	fmt.Fprintf(&b, "mark %#x undecided %q\n", tr.Mark, tr.Undecided)
	for _, e := range tr.Endpoints {
		for _, s := range e.Path {
			fmt.Fprintf(&b, "  %s %s #%d %v\n", s.Table(), s.Chain(), s.RuleIndex(), s.Matched)
		}
	}
	return b.String()
}

var (
	addrRE = regexp.MustCompile(`\b\d+\.\d+\.\d+\.\d+\b|\b[0-9a-f]*:[0-9a-f:]*:[0-9a-f]+\b`)
	portRE = regexp.MustCompile(`(?:--dport|--to-destination [^ :]+:|--dports) (\d+)`)
)

func dumpAddrs(text string) []netip.Addr {
	var out []netip.Addr
	for _, m := range addrRE.FindAllString(text, -1) {
		if a, err := netip.ParseAddr(m); err == nil {
			out = append(out, a)
		}
	}
	return append(out, netip.MustParseAddr("192.0.2.9"), netip.MustParseAddr("2001:db8::9"))
}

func dumpPorts(text string) []uint16 {
	out := []uint16{80, 53}
	for _, m := range portRE.FindAllStringSubmatch(text, -1) {
		if n, err := strconv.ParseUint(m[1], 10, 16); err == nil {
			out = append(out, uint16(n))
		}
	}
	return out
}

func randomPacket(rng *rand.Rand, addrs []netip.Addr, ports []uint16) trace.Packet {
	pick := func() netip.Addr { return addrs[rng.IntN(len(addrs))] }
	src, dst := pick(), pick()
	for src.Is4() != dst.Is4() {
		dst = pick()
	}
	p := trace.Packet{Src: src, Dst: dst, Proto: []string{"tcp", "udp"}[rng.IntN(2)], DPort: ports[rng.IntN(len(ports))],
		From: []string{"pod", "node"}[rng.IntN(2)], Mark: []uint32{0, 0, 0x4000, 0x8000}[rng.IntN(4)]}
	if rng.IntN(4) == 0 {
		p.State = "established"
	}
	return p
}
