package verifytrace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/iptrace"
)

// Result counts one dump's packets.
type Result struct {
	Dump      string `json:"dump"`
	Packets   int    `json:"packets"`
	Agreed    int    `json:"agreed"`    // a verdict, and the kernel took one of the predicted paths
	Unknown   int    `json:"unknown"`   // verdict unknown
	Disagreed int    `json:"disagreed"` // a verdict the kernel contradicted
	// Established counts the packets of those that were a connection's
	// second packet (after a reply the node's conntrack saw), traced with
	// state established.
	Established int      `json:"established"`
	Examples    []string `json:"examples,omitempty"`
}

// Options of a run.
type Options struct {
	Packets int    // per dump
	Seed    uint64 // for the random packets
	// Done, once closed, stops the run before its next packet: it removes
	// its lab and returns ErrInterrupted (nil: never).
	Done <-chan struct{}
}

// VerifyFile loads the dump at path into a scratch lab and checks opts.Packets
// random packets.
func VerifyFile(path string, opts Options) (Result, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return Result{}, fmt.Errorf("verify-trace: %w", err)
	}
	// DUMP.ipsets next to the dump holds its ipsets.
	ipsets, err := os.ReadFile(strings.TrimSuffix(path, filepath.Ext(path)) + ".ipsets")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, fmt.Errorf("verify-trace: %w", err)
	}
	host, err := os.ReadFile(strings.TrimSuffix(path, filepath.Ext(path)) + hostNFTExt)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, fmt.Errorf("verify-trace: %w", err)
	}
	var res Result
	if host != nil {
		meta, merr := ReadMeta(text)
		if merr != nil {
			return Result{}, merr
		}
		res, err = verifyHost(text, host, meta, opts)
	} else {
		res, err = Verify(text, ipsets, opts)
	}
	res.Dump = path
	var de *analyze.DumpError // a bad header or dump: name the file
	if errors.As(err, &de) && de.Path == "" {
		de.Path = path
	}
	return res, err
}

// Verify checks the dump text against the kernel; ipsets is the `ipset
// save` output the dump's -m set matches need (nil for none).
func Verify(text, ipsets []byte, opts Options) (Result, error) {
	meta, err := ReadMeta(text)
	if err != nil {
		return Result{}, err
	}
	if isNFT(text) {
		return verifyNFT(text, meta, opts)
	}
	d, err := iptables.ParseString(string(text))
	if err != nil {
		return Result{}, &analyze.DumpError{Err: err}
	}
	sets, err := ipvs.ParseIPSetSave(bytes.NewReader(ipsets))
	if err != nil {
		return Result{}, fmt.Errorf("verify-trace: %w", err)
	}
	if ipsets == nil {
		sets = nil
	}
	tr, err := iptrace.NewIPTablesTracer(d, iptrace.Options{LocalAddrs: append(meta.Local, meta.nodeAddr()), IPSets: sets})
	if err != nil {
		return Result{}, fmt.Errorf("verify-trace: compile the dump: %w", err)
	}
	l, err := newLab(meta)
	if err != nil {
		return Result{}, err
	}
	defer l.close()
	if ipsets != nil {
		if err := l.loadIPSets(ipsets); err != nil {
			return Result{}, err
		}
	}
	if err := l.load(text); err != nil {
		return Result{}, err
	}
	return l.run(d, meta, sets, tr, opts)
}

func (l *lab) run(d *iptables.Dump, meta Meta, sets ipvs.IPSets, tr *iptrace.IPTablesTracer, opts Options) (Result, error) {
	var res Result
	senders, err := l.senders(meta)
	if err != nil {
		return res, err
	}
	defer senders.close()
	before, err := l.quiesce()
	if err != nil {
		return res, err
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x5eed))
	pool := newPool(d, meta, sets)
	for i := range opts.Packets {
		if err := opts.stopped(); err != nil {
			return res, err
		}
		p := pool.draw(rng, uint16(10000+i%50000))
		if err := senders.send(p); err != nil {
			return res, err
		}
		after, err := l.snapshot()
		if err != nil {
			return res, err
		}
		k := outcomeOf(before, after)
		before = after
		t, err := tr.Trace(tracerPacket(p, pool))
		if err != nil {
			return res, fmt.Errorf("trace %v: %w", p, err)
		}
		res.count(p, t, k)
		if p.FromNode || k.verdict != iptrace.Accept || i%estEvery != 0 {
			continue
		}
		if before, err = l.checkEstablished(&res, p, senders, pool, tr); err != nil {
			return res, err
		}
	}
	return res, nil
}

// estEvery: every estEvery-th packet, if the node accepted it from a
// client, is followed by its connection's second packet.
const estEvery = 3

// count records one packet's comparison.
func (res *Result) count(p Packet, t iptrace.Trace, k kernelOutcome) {
	res.Packets++
	switch {
	case t.Verdict == iptrace.Unknown:
		res.Unknown++
	case agrees(t, k):
		res.Agreed++
	default:
		res.Disagreed++
		if len(res.Examples) < 5 {
			res.Examples = append(res.Examples, fmt.Sprintf("%v: kernel %v; tracer:\n%s", p, k, t))
		}
	}
}

// checkEstablished makes p's connection established and checks its next
// packet, traced with state established and the destination the filter
// chains see (the connection's DNAT, which nat no longer decides). It
// returns the counters after.
func (l *lab) checkEstablished(res *Result, p Packet, s *senderSet, pool *pool, tr *iptrace.IPTablesTracer) (snapshot, error) {
	next, seen, ok, err := l.establish(p, s, pool.local, 0, nil)
	if err != nil {
		return snapshot{}, err
	}
	before, err := l.snapshot()
	if err != nil || !ok {
		return before, err
	}
	if err := s.send(next); err != nil {
		return before, err
	}
	after, err := l.snapshot()
	if err != nil {
		return before, err
	}
	tp := tracerPacket(next, pool)
	tp.State, tp.Dst, tp.DPort = "established", seen.Addr(), seen.Port()
	t, err := tr.Trace(tp)
	if err != nil {
		return after, fmt.Errorf("trace %v: %w", next, err)
	}
	res.Established++
	res.count(next, t, outcomeOf(before, after))
	return after, nil
}

// quiesce waits until no counter moves for a while (IPv6 sends MLD
// reports, up to a second apart, for a few seconds after addresses are
// added) and returns the counters then.
func (l *lab) quiesce() (snapshot, error) {
	window := 100 * time.Millisecond
	if l.ipv6 {
		window = 1500 * time.Millisecond
	}
	prev, err := l.snapshot()
	for i := 0; i < 10 && err == nil; i++ {
		time.Sleep(window)
		var cur snapshot
		if cur, err = l.snapshot(); err == nil && maps.Equal(cur.counts, prev.counts) {
			return cur, nil
		}
		prev = cur
	}
	return prev, err
}

func (l *lab) snapshot() (snapshot, error) {
	out, err := l.save()
	if err != nil {
		return snapshot{}, err
	}
	return parseSnapshot(out)
}

// tracerPacket is what the tracer is told: the interfaces of the topology
// (in on eth0 from the client; out on eth0 unless local).
func tracerPacket(p Packet, pool *pool) trace.Packet {
	tp := trace.Packet{Src: p.Src, Dst: p.Dst, Proto: p.Proto, SPort: p.SPort, DPort: p.DPort, From: "pod",
		InIface: p.InIface, OutIface: "eth0", Mark: p.Mark}
	if p.FromNode {
		tp.From, tp.InIface = "node", ""
	}
	return tp
}

// senderSet is the raw sockets a lab sends from: one per client
// interface, one in the node.
type senderSet struct {
	clients map[string]*sender
	node    *sender
	ipv6    bool
}

func (l *lab) senders(meta Meta) (*senderSet, error) {
	s := &senderSet{clients: map[string]*sender{}, ipv6: meta.IPv6}
	for n, iface := range append([]string{"eth0"}, meta.Ifaces...) {
		dev := "eth0"
		if n > 0 {
			dev = clientIface(n - 1)
		}
		c, err := openSender(l.client, dev, meta.IPv6)
		if err != nil {
			s.close()
			return nil, err
		}
		s.clients[iface] = c
	}
	var err error
	if s.node, err = openSender(l.node, "", meta.IPv6); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *senderSet) send(p Packet) error {
	if p.FromNode {
		return s.node.send(p)
	}
	return s.clients[p.InIface].send(p)
}

func (s *senderSet) close() {
	for _, c := range s.clients {
		c.close()
	}
	if s.node != nil {
		s.node.close()
	}
}
