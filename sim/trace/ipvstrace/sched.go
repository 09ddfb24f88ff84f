package ipvstrace

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"

	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/trace"
)

// schedule gives each real server its chance for p's first connection.
// Real servers of weight 0 are quiesced: they get no new connections.
func schedule(svc *ipvs.Service, p trace.Packet, added []netip.AddrPort) ([]Endpoint, error) {
	eps := make([]Endpoint, len(svc.Dests))
	total, live := 0, 0
	for i, d := range svc.Dests {
		eps[i] = Endpoint{Addr: d.Addr, Weight: d.Weight}
		if d.Weight > 0 {
			total += d.Weight
			live++
		}
	}
	if live == 0 {
		return eps, nil
	}
	switch svc.Scheduler {
	case "rr", "lc", "nq", "lblc", "lblcr", "dh", "fo", "ovf":
		for i := range eps {
			if eps[i].Weight > 0 {
				eps[i].Probability = 1 / float64(live)
			}
		}
	case "wrr", "wlc", "sed", "mh":
		for i := range eps {
			eps[i].Probability = float64(max(eps[i].Weight, 0)) / float64(total)
		}
	case "sh":
		return shSchedule(svc, p, eps, added)
	default:
		return nil, fmt.Errorf("ipvs trace: scheduler %q is not modelled", svc.Scheduler)
	}
	return eps, nil
}

// shSchedule: with the order the servers were added, the one server this
// source hashes to gets probability 1; without it, each server gets its
// share of the buckets (the chance for a source picked at random).
func shSchedule(svc *ipvs.Service, p trace.Packet, eps []Endpoint, added []netip.AddrPort) ([]Endpoint, error) {
	if added == nil {
		list := kernelList(svc, nil)
		for _, d := range shBuckets(svc, list) {
			eps[d].Probability += 1.0 / (1 << shTabBits)
		}
		return eps, nil
	}
	list := kernelList(svc, added)
	if len(list) != len(svc.Dests) {
		return nil, fmt.Errorf("ipvs trace: AddedOrder for %s does not list its %d real servers", svc.Key(), len(svc.Dests))
	}
	if i := shPick(svc, list, p); i >= 0 {
		eps[i].Probability = 1
	}
	return eps, nil
}

// kernelList is the kernel's order of svc's real servers (indexes into
// Dests): newest first, from added (oldest first); nil added keeps the
// printed order.
func kernelList(svc *ipvs.Service, added []netip.AddrPort) []int {
	var list []int
	if added == nil {
		for i := range svc.Dests {
			list = append(list, i)
		}
		return list
	}
	for k := len(added) - 1; k >= 0; k-- {
		for i, d := range svc.Dests {
			if d.Addr == added[k] {
				list = append(list, i)
			}
		}
	}
	return list
}

// shBuckets fills the 256 buckets from list, each server taking
// max(weight, 1) consecutive buckets, round and round
// (ip_vs_sh_reassign).
func shBuckets(svc *ipvs.Service, list []int) [1 << shTabBits]int {
	var buckets [1 << shTabBits]int
	j, count := 0, 0
	for b := range buckets {
		buckets[b] = list[j]
		count++
		if count >= svc.Dests[list[j]].Weight {
			j, count = (j+1)%len(list), 0
		}
	}
	return buckets
}

// shTabBits is CONFIG_IP_VS_SH_TAB_BITS (default 8: 256 buckets).
const shTabBits = 8

// shPick is the real server ip_vs_sh picks for p, or -1 for none: the
// buckets are filled from the kernel's list (shBuckets); the source
// address, plus the source port with sh-port, is hashed with hash_32
// (ip_vs_sh_hashkey). A bucket whose server has weight 0 gives no server,
// unless sh-fallback walks on to the next available one.
func shPick(svc *ipvs.Service, list []int, p trace.Packet) int {
	buckets := shBuckets(svc, list)
	port := uint32(0)
	if strings.Contains(svc.Flags, "sh-port") {
		port = uint32(p.SPort)
	}
	key := func(offset uint32) uint32 {
		return (offset + hash32(port+addrFold(p.Src.Unmap()), shTabBits)) & (1<<shTabBits - 1)
	}
	ihash := key(0)
	if d := buckets[ihash]; svc.Dests[d].Weight > 0 {
		return d
	}
	if !strings.Contains(svc.Flags, "sh-fallback") {
		return -1
	}
	for offset := uint32(0); offset < 1<<shTabBits; offset++ {
		if d := buckets[key((offset+ihash)%(1<<shTabBits))]; svc.Dests[d].Weight > 0 {
			return d
		}
	}
	return -1
}

// hash32 is the kernel's hash_32: val · GOLDEN_RATIO_32 >> (32 − bits).
func hash32(val uint32, bits uint) uint32 { return (val * 0x61C88647) >> (32 - bits) }

// addrFold is the address as ip_vs_sh_hashkey folds it, in host order
// (IPv6: the xor of its four 32-bit words).
func addrFold(a netip.Addr) uint32 {
	if a.Is4() {
		b := a.As4()
		return binary.BigEndian.Uint32(b[:])
	}
	b := a.As16()
	var x uint32
	for i := 0; i < 16; i += 4 {
		x ^= binary.BigEndian.Uint32(b[i:])
	}
	return x
}

func schedulerNotes(svc *ipvs.Service) []string {
	var notes []string
	switch svc.Scheduler {
	case "lc":
		notes = append(notes, "lc picks the server with the fewest connections: equal shares when connections last alike")
	case "wlc", "sed":
		notes = append(notes, svc.Scheduler+" picks by connections per weight: shares by weight when connections last alike")
	case "mh":
		notes = append(notes, "mh (maglev) fills its table from a per-boot hash key: shares by weight, which server a given client gets cannot be known offline")
	case "sh":
		notes = append(notes, "sh: every connection from this source goes to the same server")
	}
	if svc.Persistent > 0 {
		notes = append(notes, fmt.Sprintf("persistent: later connections from the same client go to the same real server for %d s", svc.Persistent))
	}
	return notes
}
