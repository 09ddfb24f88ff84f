package model

import (
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"net/netip"
	"sort"
)

// addrPool hands out distinct IPv4 addresses from a prefix in a seeded,
// scrambled order: the i-th address is base + skip(perm(i)), where perm is an
// affine bijection (a*i + c) mod m and skip steps over reserved sub-ranges.
// Being a bijection, it can never hand out one address twice.
type addrPool struct {
	base     uint32
	first    uint32      // lowest usable offset (1: skip the network address)
	m        uint64      // number of usable offsets before exclusions are skipped
	a, c     uint64      // the affine permutation
	excluded [][2]uint32 // [start,len) offsets from base, sorted
	taken    []uint64    // sorted permutation indexes whose address is reserved
}

// newAddrPool prepares a pool over prefix, minus exclude (sub-prefixes that
// must never be handed out) and reserved (single addresses already in use).
// reserveLow offsets at the start of the prefix are skipped as well.
func newAddrPool(prefix netip.Prefix, reserveLow uint32, exclude []netip.Prefix, reserved []netip.Addr, seed uint64) (*addrPool, error) {
	if !prefix.Addr().Is4() {
		return nil, fmt.Errorf("prefix %s: only IPv4 is supported", prefix)
	}
	prefix = prefix.Masked()
	size := uint64(1) << (32 - prefix.Bits())
	if size < uint64(reserveLow)+2 {
		return nil, fmt.Errorf("prefix %s is too small", prefix)
	}
	p := &addrPool{base: ipv4Uint(prefix.Addr()), first: reserveLow}
	p.excluded = excludedRanges(prefix, p.base, exclude)
	usable := size - uint64(reserveLow) - 1 // minus the broadcast address
	for _, r := range p.excluded {
		usable -= uint64(r[1])
	}
	p.m = usable
	rng := rand.New(rand.NewPCG(seed, 0x5c1ab))
	p.a = coprimeMultiplier(rng, p.m)
	p.c = rng.Uint64N(p.m)
	for _, ip := range reserved {
		if idx, ok := p.indexOf(ip); ok {
			p.taken = append(p.taken, idx)
		}
	}
	sort.Slice(p.taken, func(i, j int) bool { return p.taken[i] < p.taken[j] })
	return p, nil
}

// capacity is how many addresses the pool can hand out.
func (p *addrPool) capacity() uint64 { return p.m - uint64(len(p.taken)) }

// addr returns the i-th address of the pool (0 <= i < capacity()).
func (p *addrPool) addr(i uint64) netip.Addr {
	for _, t := range p.taken {
		if t <= i {
			i++
		}
	}
	hi, lo := bits.Mul64(p.a, i)
	_, rem := bits.Div64(hi%p.m, lo, p.m) // (a*i) mod m without overflow
	off := uint32((rem+p.c)%p.m) + p.first
	for _, r := range p.excluded {
		if off >= r[0] {
			off += r[1]
		}
	}
	return uint32IPv4(p.base + off)
}

// indexOf inverts addr: which permutation index yields ip, if any.
func (p *addrPool) indexOf(ip netip.Addr) (uint64, bool) {
	if !ip.Is4() {
		return 0, false
	}
	off := ipv4Uint(ip) - p.base
	if ipv4Uint(ip) < p.base || uint64(off) < uint64(p.first) {
		return 0, false
	}
	for i := len(p.excluded) - 1; i >= 0; i-- {
		r := p.excluded[i]
		switch {
		case off >= r[0]+r[1]:
			off -= r[1]
		case off >= r[0]:
			return 0, false
		}
	}
	x := uint64(off - p.first)
	if x >= p.m {
		return 0, false
	}
	inv := new(big.Int).ModInverse(new(big.Int).SetUint64(p.a), new(big.Int).SetUint64(p.m))
	v := new(big.Int).SetUint64((x + p.m - p.c) % p.m)
	v.Mul(v, inv).Mod(v, new(big.Int).SetUint64(p.m))
	return v.Uint64(), true
}

// excludedRanges turns sub-prefixes into [start,len) offset ranges from the
// prefix base, sorted by start. Exclusions must not overlap each other.
func excludedRanges(prefix netip.Prefix, base uint32, exclude []netip.Prefix) [][2]uint32 {
	var out [][2]uint32
	for _, e := range exclude {
		e = e.Masked()
		if !prefix.Overlaps(e) || e.Bits() < prefix.Bits() {
			continue
		}
		out = append(out, [2]uint32{ipv4Uint(e.Addr()) - base, uint32(1) << (32 - e.Bits())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// coprimeMultiplier picks a seeded multiplier coprime to m, away from the
// trivial 1 so consecutive indexes scatter.
func coprimeMultiplier(rng *rand.Rand, m uint64) uint64 {
	if m <= 2 {
		return 1
	}
	for {
		a := rng.Uint64N(m-1) + 1
		if gcd(a, m) == 1 && (a > 1 || m < 4) {
			return a
		}
	}
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func ipv4Uint(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func uint32IPv4(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}
