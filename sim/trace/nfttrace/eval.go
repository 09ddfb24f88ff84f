package nfttrace

import (
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// maxDepth bounds jump nesting, maxRules the rules one trace may evaluate.
const (
	maxDepth = 64
	maxRules = 1 << 20
)

// state is one branch of a trace.
type state struct {
	src, dst  netip.Addr
	proto     uint8
	dport     uint16
	mark      uint32
	masq      bool
	dnat      netip.AddrPort
	prob      float64
	eff       float64 // the probability as the kernel's numgen gives it
	hook      string
	nat       bool // the base chain being run is of type nat
	path      []Step
	rules     int
	lookups   int
	affSet    string
	affExpiry time.Duration

	// Conntrack and interfaces.
	untracked, established, looped bool
	in, out                        string // "" when there is none at this hook
	inKnown, outKnown              bool
	givenIn, givenOut              string
	unknown                        string // why the verdict cannot be known
	service                        string // named by an External chain's walk (see ExternalOutcome.Service)
}

// ctState is the packet's conntrack state bit.
func (st *state) ctState() uint32 {
	switch {
	case st.untracked:
		return ctUntracked
	case st.established:
		return ctEstablished
	}
	return ctNew
}

// setIfaces sets the interfaces the packet has at hook (see iptrace).
func (st *state) setIfaces(hook string, fromNode, local bool) {
	switch {
	case hook == "output" || (fromNode && !st.looped):
		st.in, st.inKnown = "", true
	case st.looped:
		st.in, st.inKnown = "lo", true
	default:
		st.in, st.inKnown = st.givenIn, st.givenIn != ""
	}
	switch {
	case hook == "prerouting" || hook == "input":
		st.out, st.outKnown = "", true
	case local:
		st.out, st.outKnown = "lo", true
	default:
		st.out, st.outKnown = st.givenOut, st.givenOut != ""
	}
}

// clone copies a branch so a fork can diverge.
func (st *state) clone() *state {
	c := *st
	if st.path != nil {
		c.path = append(make([]Step, 0, len(st.path)+8), st.path...)
	}
	return &c
}

// frame is a chain being run and the next rule in it.
type frame struct {
	chain *cchain
	pos   int
}

// tracer holds one trace's outcomes.
type tracer struct {
	p        *Program
	from     string
	outcomes []Outcome
	affinity string
}

var errTooManyRules = errors.New("trace evaluated too many rules (a jump loop?)")

// run runs a base chain and calls done with its verdict for each branch:
// "accept" (go on to the next base chain), "drop" or "reject".
func (tr *tracer) run(st *state, stack []frame, policy string, done func(*state, string) error) error {
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.pos >= len(top.chain.rules) {
			stack = stack[:len(stack)-1] // implicit return
			continue
		}
		r := top.chain.rules[top.pos]
		top.pos++
		if st.rules++; st.rules > maxRules {
			return errTooManyRules
		}
		act, err := tr.exec(st, top.chain, r)
		if err != nil {
			return err
		}
		switch act.kind {
		case actNone:
		case actFinal:
			return done(st, act.final)
		case actVerdict:
			var final string
			if stack, final, err = apply(act.v, stack); err != nil {
				return err
			} else if final != "" {
				return done(st, final)
			}
		case actFork:
			return tr.fork(st, stack, policy, act, done)
		case actForkNAT:
			return tr.forkNumgenNAT(st, stack, policy, act.fork, done)
		}
	}
	return done(st, policy)
}

// fork continues each numgen branch with probability 1/N (as written) and
// NumgenEffective (as the kernel draws it).
func (tr *tracer) fork(st *state, stack []frame, policy string, act action, done func(*state, string) error) error {
	n := float64(len(act.fork.entries))
	for i, v := range act.fork.entries {
		b := st.clone()
		b.prob /= n
		b.eff *= NumgenEffective(i, len(act.fork.entries))
		if len(b.path) > 0 {
			b.path[len(b.path)-1].Note = act.fork.notes[i]
		}
		bs := append([]frame(nil), stack...)
		if v == nil { // no map entry: the rule does not match
			if err := tr.run(b, bs, policy, done); err != nil {
				return err
			}
			continue
		}
		ns, final, err := apply(v, bs)
		if err != nil {
			return err
		}
		if final != "" {
			err = done(b, final)
		} else {
			err = tr.run(b, ns, policy, done)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// apply carries out a verdict on the chain stack; it returns a final
// verdict when the base chain ends.
func apply(v *verdict, stack []frame) ([]frame, string, error) {
	switch v.kind {
	case "jump":
		if len(stack) >= maxDepth {
			return nil, "", fmt.Errorf("jump to %s: chains nest deeper than %d", v.name, maxDepth)
		}
		return append(stack, frame{chain: v.chain}), "", nil
	case "goto":
		stack[len(stack)-1] = frame{chain: v.chain}
		return stack, "", nil
	case "return":
		return stack[:len(stack)-1], "", nil
	case "continue":
		return stack, "", nil
	case "accept", "drop":
		return stack, v.kind, nil
	}
	return nil, "", fmt.Errorf("verdict %q is not supported", v.kind)
}

// NumgenEffective is the probability that "numgen random mod n" gives k in
// the kernel: nft_ng_random_eval takes reciprocal_scale(get_random_u32(),
// n), i.e. floor(r·n/2^32) for a uniform 32-bit r, so k is drawn for
// ceil((k+1)·2^32/n) − ceil(k·2^32/n) of the 2^32 values.
func NumgenEffective(k, n int) float64 {
	if n <= 0 || k < 0 || k >= n {
		return 0
	}
	ceilDiv := func(a, b uint64) uint64 { return (a + b - 1) / b }
	lo := ceilDiv(uint64(k)<<32, uint64(n))
	hi := ceilDiv(uint64(k+1)<<32, uint64(n))
	return float64(hi-lo) / (1 << 32)
}
