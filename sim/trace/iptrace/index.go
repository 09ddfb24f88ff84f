package iptrace

import (
	"net/netip"
	"slices"
)

// dstIndex finds, in a long chain, the rules that can match a destination:
// rules with a fixed, non-negated host -d are listed under that address;
// every other rule is generic. A rule in neither list for a packet's
// destination cannot match it, so the walk skips it while still counting
// it as evaluated.
type dstIndex struct {
	v4      map[uint32][]int32
	v6      map[netip.Addr][]int32
	generic []int32
}

func buildDstIndex(rules []compiledRule) *dstIndex {
	x := &dstIndex{v4: map[uint32][]int32{}, v6: map[netip.Addr][]int32{}}
	for i := range rules {
		d := &rules[i].dst
		switch {
		case !d.isHost():
			x.generic = append(x.generic, int32(i))
		case d.v4:
			x.v4[d.addr] = append(x.v4[d.addr], int32(i))
		default:
			a := d.v6.Addr()
			x.v6[a] = append(x.v6[a], int32(i))
		}
	}
	return x
}

// next returns the first rule at or after pos that can match p, or -1.
func (c *compiledChain) next(pos int, p *pktState) int {
	if pos >= len(c.rules) {
		return -1
	}
	if c.index == nil {
		return pos
	}
	var bucket []int32
	if p.is4 {
		bucket = c.index.v4[p.dst4]
	} else {
		bucket = c.index.v6[p.dst]
	}
	g, b := firstAtLeast(c.index.generic, pos), firstAtLeast(bucket, pos)
	switch {
	case g < 0:
		return b
	case b < 0:
		return g
	}
	return min(g, b)
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
