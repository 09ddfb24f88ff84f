package iptrace

import (
	"math/bits"
	"net/netip"
	"slices"
)

// dstIndex finds, in a long chain, the rules that can match a destination:
// rules with a fixed, non-negated host -d are listed under that address;
// of the others, those with a fixed, non-negated --dport are listed under
// that port (kube-proxy's NodePort and external-service rules: one per
// port, thousands in one chain); every other rule is generic. A rule in no
// list for a packet's destination and port cannot match it, so the walk
// skips it while still counting it as evaluated. IPv4 addresses are in an open-addressing table (one
// cache line per lookup, the rule index itself when an address has one
// rule, as a service's cluster IP in KUBE-SERVICES has per port).
type dstIndex struct {
	slots   []v4Slot // a power of two long, linear probing
	shift   uint8    // 32 - log2(len(slots))
	lists   []int32  // the rules of addresses with several, address after address
	v6      map[netip.Addr][]int32
	ports   map[uint16][]int32
	generic []int32
}

// v4Slot is one IPv4 address of a dstIndex: n rules, the rule itself when
// n is 1, else lists[at:at+n]. n == 0 marks an empty slot. ahead is the
// look-ahead of the chain the one rule jumps to (see aheadBlock); slots
// are 32 bytes, two a cache line.
type v4Slot struct {
	addr  uint32
	at, n int32
	ahead aheadBlock
	_     [2]byte
}

func buildDstIndex(rules []compiledRule) *dstIndex {
	x := &dstIndex{v6: map[netip.Addr][]int32{}, ports: map[uint16][]int32{}}
	v4 := map[uint32][]int32{}
	var order []uint32
	for i := range rules {
		r := &rules[i]
		d := &r.dst
		switch {
		case !d.isHost() && r.checks&checkDPort != 0 && r.flags&flagDPortNeg == 0 && r.dportLo == r.dportHi:
			x.ports[r.dportLo] = append(x.ports[r.dportLo], int32(i))
		case !d.isHost():
			x.generic = append(x.generic, int32(i))
		case d.v4:
			if v4[d.addr] == nil {
				order = append(order, d.addr)
			}
			v4[d.addr] = append(v4[d.addr], int32(i))
		default:
			a := d.v6.Addr()
			x.v6[a] = append(x.v6[a], int32(i))
		}
	}
	size := 1 << bits.Len(uint(2*len(order)+1)) // load factor <= 1/2
	x.slots = make([]v4Slot, size)
	x.shift = uint8(32 - bits.TrailingZeros(uint(size)))
	for _, a := range order {
		list := v4[a]
		s := v4Slot{addr: a, at: list[0], n: int32(len(list))}
		if len(list) > 1 {
			s.at = int32(len(x.lists))
			x.lists = append(x.lists, list...)
		}
		i := x.home(a)
		for x.slots[i].n != 0 {
			i = (i + 1) & uint32(len(x.slots)-1)
		}
		x.slots[i] = s
	}
	return x
}

// home is the slot where a's probe starts.
func (x *dstIndex) home(a uint32) uint32 {
	if x.shift >= 32 {
		return 0
	}
	return (a * 0x9e3779b1) >> x.shift
}

// firstAt4 returns the first rule at or after pos listed under IPv4
// address a, or -1, and the address's slot (nil if none).
func (x *dstIndex) firstAt4(a uint32, pos int) (int, *v4Slot) {
	mask := uint32(len(x.slots) - 1)
	for i := x.home(a); ; i = (i + 1) & mask {
		s := &x.slots[i]
		switch {
		case s.n == 0:
			return -1, nil
		case s.addr != a:
			continue
		case s.n == 1:
			if int(s.at) >= pos {
				return int(s.at), s
			}
			return -1, s
		}
		return firstAtLeast(x.lists[s.at:s.at+s.n], pos), s
	}
}

// next returns the first rule at or after pos that can match p, or -1,
// and the look-ahead of p's destination slot (nil if none).
func (c *compiledChain) next(pos int, p *pktState) (int, *aheadBlock) {
	if pos >= len(c.rules) {
		return -1, nil
	}
	if c.index == nil {
		return pos, nil
	}
	var b int
	var ahead *aheadBlock
	if p.is4 {
		var s *v4Slot
		if b, s = c.index.firstAt4(p.dst4, pos); s != nil && s.ahead.chain >= 0 {
			ahead = &s.ahead
		}
	} else {
		b = firstAtLeast(c.index.v6[p.dst], pos)
	}
	g := firstAtLeast(c.index.generic, pos)
	if l := c.index.ports[p.dport]; l != nil {
		if q := firstAtLeast(l, pos); q >= 0 && (g < 0 || q < g) {
			g = q
		}
	}
	switch {
	case g < 0:
		return b, ahead
	case b < 0:
		return g, ahead
	}
	return min(g, b), ahead
}

// firstAtLeast returns the first element of the sorted list that is >= pos,
// or -1.
func firstAtLeast(list []int32, pos int) int {
	i, _ := slices.BinarySearch(list, int32(pos))
	if i == len(list) {
		return -1
	}
	return int(list[i])
}
