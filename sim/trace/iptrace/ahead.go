package iptrace

// On a large dump a packet's own service is not in the cache: its
// KUBE-SERVICES rule, service chain, endpoint chains and their rules are
// each a cache miss, and each is found through the one before (the index
// slot names the rule, the rule the chain, the chain its rules, a rule the
// next chain). Waited for one after the other they cost most of a trace.
// So the compiler records, for each chain that fans out (statistic rules),
// where the rules of the chain and of the chains it jumps to lie in the
// table's rule slab, which the dump's order makes one contiguous block for
// a kube-proxy service; the destination index copies that into the slot
// of an address whose rule jumps to such a chain. The walk loads the whole
// block as soon as it reads the slot (or enters the chain), and the misses
// overlap.

// maxAheadRules and maxAheadChains bound what one look-ahead loads.
const (
	maxAheadRules  = 24
	maxAheadChains = 12
)

// aheadBlock is what a walk entering chain will read next: the table's
// slab[lo:lo+n] (the chain's rules and those of the chains it jumps to
// next to them) and chains[chainLo:chainLo+chainN] (those chains).
type aheadBlock struct {
	chain   int32 // -1: none
	lo      int32
	chainLo int32
	n       uint8
	chainN  uint8
}

var noAhead = aheadBlock{chain: -1}

// setAheads fills ct.aheads for the chains that fan out and the look-ahead
// of ct's destination index slots. It runs once ct has all its chains.
func (ct *compiledTable) setAheads() {
	for len(ct.slabAt) < len(ct.chains) { // chains added after compileTable (addKubeJumps)
		ct.slabAt = append(ct.slabAt, -1)
	}
	ct.aheads = make([]aheadBlock, len(ct.chains))
	for c := range ct.chains {
		ct.aheads[c] = noAhead
		if ct.chains[c].fans {
			ct.aheads[c] = ct.aheadOf(int32(c))
		}
	}
	for c := range ct.chains {
		if x := ct.chains[c].index; x != nil {
			x.setAheads(ct.chains[c].rules, ct.aheads)
		}
	}
}

// aheadOf is chain c's look-ahead: its rules, then each chain it jumps to
// whose rules lie right next to the block so far (a kube-proxy service's
// endpoint chains follow its chain; shared chains such as KUBE-MARK-MASQ,
// in the cache anyway, lie elsewhere), within the bounds.
func (ct *compiledTable) aheadOf(c int32) aheadBlock {
	lo, hi := ct.slabAt[c], ct.slabAt[c]+int32(len(ct.chains[c].rules))
	if lo < 0 {
		return noAhead
	}
	clo, chi := c, c+1
	for i := range ct.chains[c].rules {
		r := &ct.chains[c].rules[i]
		if r.target != targetJump && r.target != targetGoto || ct.slabAt[r.chain] < 0 {
			continue
		}
		tlo, thi := ct.slabAt[r.chain], ct.slabAt[r.chain]+int32(len(ct.chains[r.chain].rules))
		nlo, nhi, nclo, nchi := min(lo, tlo), max(hi, thi), min(clo, r.chain), max(chi, r.chain+1)
		if (tlo == hi || thi == lo) && nhi-nlo <= maxAheadRules && nchi-nclo <= maxAheadChains {
			lo, hi, clo, chi = nlo, nhi, nclo, nchi
		}
	}
	n := min(hi-lo, maxAheadRules)
	return aheadBlock{chain: c, lo: lo, chainLo: clo, n: uint8(n), chainN: uint8(chi - clo)}
}

// setAheads gives each slot whose one rule jumps to a chain with a
// look-ahead that look-ahead.
func (x *dstIndex) setAheads(rules []compiledRule, aheads []aheadBlock) {
	for i := range x.slots {
		s := &x.slots[i]
		s.ahead = noAhead
		if s.n != 1 {
			continue
		}
		if r := &rules[s.at]; r.target == targetJump || r.target == targetGoto {
			s.ahead = aheads[r.chain]
		}
	}
}

// touch loads the block a (one load per 64-byte rule, one per chain
// entry) and returns a sum of what it read, so the loads are kept.
func (ct *compiledTable) touch(a *aheadBlock) uint32 {
	var sum uint32
	rules := ct.slab[a.lo : a.lo+int32(a.n)]
	for k := range rules {
		sum += uint32(rules[k].checks)
	}
	for k := a.chainLo; k < a.chainLo+int32(a.chainN); k++ {
		sum += uint32(len(ct.chains[k].rules))
	}
	return sum
}
