package verifytrace

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/trace/iptrace"
)

// Result counts one dump's packets.
type Result struct {
	Dump      string   `json:"dump"`
	Packets   int      `json:"packets"`
	Agreed    int      `json:"agreed"`    // a verdict, and the kernel took one of the predicted paths
	Unknown   int      `json:"unknown"`   // verdict unknown
	Disagreed int      `json:"disagreed"` // a verdict the kernel contradicted
	Examples  []string `json:"examples,omitempty"`
}

// Options of a run.
type Options struct {
	Packets int    // per dump
	Seed    uint64 // for the random packets
}

// VerifyFile loads the dump at path into a scratch lab and checks opts.Packets
// random packets.
func VerifyFile(path string, opts Options) (Result, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return Result{}, fmt.Errorf("verify-trace: %w", err)
	}
	res, err := Verify(text, opts)
	res.Dump = path
	return res, err
}

// Verify checks the dump text against the kernel.
func Verify(text []byte, opts Options) (Result, error) {
	meta, err := ReadMeta(text)
	if err != nil {
		return Result{}, err
	}
	d, err := iptables.ParseString(string(text))
	if err != nil {
		return Result{}, fmt.Errorf("verify-trace: parse the dump: %w", err)
	}
	tr, err := iptrace.NewIPTablesTracer(d, iptrace.Options{LocalAddrs: append(meta.Local, NodeAddr)})
	if err != nil {
		return Result{}, fmt.Errorf("verify-trace: compile the dump: %w", err)
	}
	l, err := newLab(meta)
	if err != nil {
		return Result{}, err
	}
	defer l.close()
	if err := l.load(text); err != nil {
		return Result{}, err
	}
	return l.run(d, meta, tr, opts)
}

func (l *lab) run(d *iptables.Dump, meta Meta, tr *iptrace.IPTablesTracer, opts Options) (Result, error) {
	var res Result
	client, err := openSender(l.client)
	if err != nil {
		return res, err
	}
	defer client.close()
	node, err := openSender(l.node)
	if err != nil {
		return res, err
	}
	defer node.close()
	before, err := l.snapshot()
	if err != nil {
		return res, err
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x5eed))
	pool := newPool(d, meta)
	for i := range opts.Packets {
		p := pool.draw(rng, uint16(10000+i%50000))
		s := client
		if p.FromNode {
			s = node
		}
		if err := s.send(p); err != nil {
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
	return res, nil
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
func tracerPacket(p Packet, pool *pool) iptrace.Packet {
	tp := iptrace.Packet{Src: p.Src, Dst: p.Dst, Proto: p.Proto, SPort: p.SPort, DPort: p.DPort, From: "pod", InIface: "eth0", OutIface: "eth0"}
	if p.FromNode {
		tp.From, tp.InIface = "node", ""
	}
	return tp
}
