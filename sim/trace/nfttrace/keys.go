package nfttrace

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/nftables"
)

// field is a packet field a rule can read.
type field uint8

const (
	fieldSrc field = iota
	fieldDst
	fieldProto
	fieldDPort
	fieldMark
	fieldCtState
	fieldFibSrc
	fieldFibDst
	fieldIIf
	fieldOIf
)

// Conntrack state bits as nft stores them (NF_CT_STATE_*_BIT).
const (
	ctInvalid     uint32 = 1
	ctEstablished uint32 = 2
	ctRelated     uint32 = 4
	ctNew         uint32 = 8
	ctUntracked   uint32 = 64
)

var ctStateBits = map[string]uint32{"invalid": ctInvalid, "established": ctEstablished, "related": ctRelated, "new": ctNew, "untracked": ctUntracked}

// key is a concatenated lookup key: fields packed big-endian, zero padded.
type key [16]byte

// fieldOf maps a selector to a field.
func fieldOf(s nftables.Selector) (field, error) {
	switch s {
	case "ip saddr":
		return fieldSrc, nil
	case "ip daddr":
		return fieldDst, nil
	case "meta l4proto":
		return fieldProto, nil
	case "th dport", "tcp dport", "udp dport", "sctp dport":
		return fieldDPort, nil
	case "meta mark":
		return fieldMark, nil
	case "ct state":
		return fieldCtState, nil
	case "fib saddr type":
		return fieldFibSrc, nil
	case "fib daddr type":
		return fieldFibDst, nil
	case "meta iifname":
		return fieldIIf, nil
	case "meta oifname":
		return fieldOIf, nil
	}
	return 0, fmt.Errorf("selector %q is not supported", s)
}

// width is how many key bytes a field takes.
func (f field) width() int {
	switch f {
	case fieldSrc, fieldDst, fieldMark, fieldCtState:
		return 4
	case fieldIIf, fieldOIf:
		return 16
	case fieldProto:
		return 1
	case fieldDPort:
		return 2
	}
	return 0
}

// keyOfPacket packs the packet's fields into a key.
func keyOfPacket(st *state, fields []field) key {
	var k key
	n := 0
	for _, f := range fields {
		switch f {
		case fieldSrc:
			a := st.src.As4()
			copy(k[n:], a[:])
		case fieldDst:
			a := st.dst.As4()
			copy(k[n:], a[:])
		case fieldProto:
			k[n] = st.proto
		case fieldDPort:
			k[n], k[n+1] = byte(st.dport>>8), byte(st.dport)
		case fieldMark:
			binary.BigEndian.PutUint32(k[n:], st.mark)
		case fieldCtState:
			binary.BigEndian.PutUint32(k[n:], st.ctState())
		case fieldIIf:
			copy(k[n:n+16], st.in)
		case fieldOIf:
			copy(k[n:n+16], st.out)
		}
		n += f.width()
	}
	return k
}

// keyOfText packs an element or literal key ("172.30.0.43 . tcp . 80").
func keyOfText(parts []string, fields []field) (key, error) {
	var k key
	if len(parts) != len(fields) {
		return k, fmt.Errorf("key %q has %d fields, want %d", strings.Join(parts, " . "), len(parts), len(fields))
	}
	n := 0
	for i, f := range fields {
		switch f {
		case fieldSrc, fieldDst:
			a, err := netip.ParseAddr(parts[i])
			if err != nil || !a.Is4() {
				return k, fmt.Errorf("key field %q: not an IPv4 address", parts[i])
			}
			b := a.As4()
			copy(k[n:], b[:])
		case fieldProto:
			p, err := protoNumber(parts[i])
			if err != nil {
				return k, err
			}
			k[n] = p
		case fieldDPort:
			p, err := strconv.ParseUint(parts[i], 10, 16)
			if err != nil {
				return k, fmt.Errorf("key field %q: not a port", parts[i])
			}
			k[n], k[n+1] = byte(p>>8), byte(p)
		case fieldMark:
			v, err := strconv.ParseUint(parts[i], 0, 32)
			if err != nil {
				return k, fmt.Errorf("key field %q: not a mark", parts[i])
			}
			binary.BigEndian.PutUint32(k[n:], uint32(v))
		case fieldCtState:
			b, ok := ctStateBits[parts[i]]
			if !ok {
				return k, fmt.Errorf("key field %q: not a conntrack state", parts[i])
			}
			binary.BigEndian.PutUint32(k[n:], b)
		case fieldIIf, fieldOIf:
			name := strings.Trim(parts[i], `"`)
			if len(name) > 15 {
				return k, fmt.Errorf("key field %q: interface name too long", parts[i])
			}
			copy(k[n:n+16], name)
		default:
			return k, fmt.Errorf("field %d cannot be part of a key", f)
		}
		n += f.width()
	}
	return k, nil
}

// typeFields maps a set's key types to the fields its elements pack as.
func typeFields(types []string) ([]field, error) {
	var out []field
	for _, t := range types {
		switch t {
		case "ipv4_addr":
			out = append(out, fieldDst)
		case "inet_proto":
			out = append(out, fieldProto)
		case "inet_service":
			out = append(out, fieldDPort)
		case "mark":
			out = append(out, fieldMark)
		case "ct_state":
			out = append(out, fieldCtState)
		case "ifname":
			out = append(out, fieldIIf)
		default:
			return nil, fmt.Errorf("set key type %q is not supported", t)
		}
	}
	return out, keyFits(out)
}

// compatible reports whether a packet key of sel fields can look up a set
// whose elements pack as set fields.
func compatible(sel, set []field) bool {
	if len(sel) != len(set) {
		return false
	}
	for i := range sel {
		addr := func(f field) bool { return f == fieldSrc || f == fieldDst }
		iface := func(f field) bool { return f == fieldIIf || f == fieldOIf }
		if sel[i] != set[i] && !(addr(sel[i]) && addr(set[i])) && !(iface(sel[i]) && iface(set[i])) {
			return false
		}
	}
	return true
}

// protoNumber reads "tcp", "udp", "sctp", "icmp" or a number.
func protoNumber(s string) (uint8, error) {
	switch s {
	case "tcp":
		return 6, nil
	case "udp":
		return 17, nil
	case "sctp":
		return 132, nil
	case "icmp":
		return 1, nil
	}
	n, err := strconv.ParseUint(s, 10, 8)
	if err != nil {
		return 0, fmt.Errorf("unknown protocol %q", s)
	}
	return uint8(n), nil
}

// keyFits checks that fields pack into a key.
func keyFits(fields []field) error {
	n := 0
	for _, f := range fields {
		if f.width() == 0 {
			return fmt.Errorf("field %d cannot be part of a key", f)
		}
		n += f.width()
	}
	if n > len(key{}) {
		return fmt.Errorf("key of %d bytes is too long", n)
	}
	return nil
}
