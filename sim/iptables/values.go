package iptables

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"net/netip"
	"strconv"
	"strings"
)

// setAddr fills an AddrMatch from "-s"/"-d" text.
func setAddr(m *AddrMatch, neg bool, s string) error {
	p, err := ParsePrefix(s)
	if err != nil {
		return err
	}
	*m = AddrMatch{Set: true, Negated: neg, Prefix: p}
	return nil
}

// ParsePrefix parses an iptables address: "10.0.0.1", "10.0.0.0/8" or
// "10.0.0.0/255.0.0.0" (and the IPv6 forms). The result is masked; a bare
// address becomes a host prefix (/32 or /128).
func ParsePrefix(s string) (netip.Prefix, error) {
	addrText, maskText, hasMask := strings.Cut(s, "/")
	addr, err := netip.ParseAddr(addrText)
	if err != nil || addr.Zone() != "" {
		return netip.Prefix{}, fmt.Errorf("bad IP address %q", s)
	}
	addr = addr.Unmap()
	if !hasMask {
		return netip.PrefixFrom(addr, addr.BitLen()), nil
	}
	n, err := maskBits(addr, maskText)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("bad IP address %q: %w", s, err)
	}
	return netip.PrefixFrom(addr, n).Masked(), nil
}

// maskBits reads a prefix length or a dotted (contiguous) mask.
func maskBits(addr netip.Addr, mask string) (int, error) {
	if n, err := strconv.Atoi(mask); err == nil {
		if n < 0 || n > addr.BitLen() {
			return 0, fmt.Errorf("prefix length %d out of range", n)
		}
		return n, nil
	}
	m, err := netip.ParseAddr(mask)
	if err != nil || m.BitLen() != addr.BitLen() {
		return 0, fmt.Errorf("bad mask %q", mask)
	}
	b := m.AsSlice()
	n := 0
	for _, x := range b {
		n += bits.OnesCount8(x)
	}
	if netip.PrefixFrom(m, n).Masked().Addr() != m {
		return 0, fmt.Errorf("non-contiguous mask %q", mask)
	}
	return n, nil
}

// parsePortRange parses "80", "1000:2000", ":2000" or "1000:".
func parsePortRange(s string) (lo, hi uint16, err error) {
	a, b, isRange := strings.Cut(s, ":")
	if !isRange {
		p, err := parsePort(s)
		return p, p, err
	}
	lo, hi = 0, math.MaxUint16
	if a != "" {
		if lo, err = parsePort(a); err != nil {
			return 0, 0, err
		}
	}
	if b != "" {
		if hi, err = parsePort(b); err != nil {
			return 0, 0, err
		}
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("bad port range %q", s)
	}
	return lo, hi, nil
}

func parsePort(s string) (uint16, error) {
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return uint16(n), nil
}

// parseMarkValue parses "0x4000" or "0x4000/0x4000" (mask 0xffffffff when
// absent).
func parseMarkValue(s string, allowMask bool) (value, mask uint32, err error) {
	v, m, hasMask := strings.Cut(s, "/")
	if hasMask && !allowMask {
		return 0, 0, fmt.Errorf("bad mark %q (no mask allowed)", s)
	}
	value, err = parseUint32(v)
	if err != nil {
		return 0, 0, err
	}
	mask = math.MaxUint32
	if hasMask {
		if mask, err = parseUint32(m); err != nil {
			return 0, 0, err
		}
	}
	return value, mask, nil
}

func parseUint32(s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return uint32(n), nil
}

// parseNATAddr parses a DNAT/SNAT address. A single address with an
// optional port fills Addr; a range is kept as text only.
func parseNATAddr(s string) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
	}
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return netip.AddrPortFrom(a.Unmap(), 0), nil
	}
	if s != "" && strings.Contains(s, "-") {
		return netip.AddrPort{}, nil // a range: kept verbatim in NATTarget.To
	}
	return netip.AddrPort{}, fmt.Errorf("bad NAT address %q", s)
}

// parseProbability reads a statistic probability (0..1).
func parseProbability(s string) (float64, error) {
	p, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(p) || p < 0 || p > 1 {
		return 0, fmt.Errorf("bad probability %q (want 0..1)", s)
	}
	return p, nil
}

var errNeedsValue = errors.New("empty value")

func nonEmpty(s string) error {
	if s == "" {
		return errNeedsValue
	}
	return nil
}
