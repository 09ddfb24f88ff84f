package ebpf

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"sort"

	"github.com/svclab/svclab/sim/model"
)

// backend is one backend slot of a service port as the maps hold it.
type backend struct {
	addr    netip.AddrPort
	counter uint32
}

// servicePort is one service port's map entry and its backends in slot
// order.
type servicePort struct {
	key      svclbSvcKey
	id       uint32
	affinity uint32
	backends []backend
}

// value is the port's entry in the services map.
func (sp *servicePort) value() svclbSvcVal {
	return svclbSvcVal{Id: sp.id, Count: uint32(len(sp.backends)), AffinityS: sp.affinity}
}

// table mirrors what the maps hold, so a change writes only what differs
// and counting knows each backend's counter.
type table struct {
	ports       map[svclbSvcKey]*servicePort
	nextID      uint32
	nextCounter uint32
	capacity    Capacity
}

func newTable(c Capacity) *table {
	return &table{ports: map[svclbSvcKey]*servicePort{}, capacity: c}
}

// reset forgets every entry; counters are handed out from 0 again (the
// caller zeroes the counters map).
func (t *table) reset() {
	t.ports = map[svclbSvcKey]*servicePort{}
	t.nextID, t.nextCounter = 0, 0
}

// serviceKey is the services map key of port p of svc, and whether the
// dataplane handles it (IPv4 ClusterIP, TCP or UDP).
func serviceKey(svc *model.Service, p model.Port) (svclbSvcKey, bool) {
	var proto uint8
	switch p.Protocol {
	case model.TCP:
		proto = 6
	case model.UDP:
		proto = 17
	default:
		return svclbSvcKey{}, false
	}
	if !svc.ClusterIP.Is4() || p.Port <= 0 || p.Port > 65535 {
		return svclbSvcKey{}, false
	}
	return svclbSvcKey{Vip: ip4(svc.ClusterIP), Port: port16(uint16(p.Port)), Proto: proto}, true
}

// endpointsOf returns the backends kube-proxy would use for port p: the
// ready endpoints, or the serving and terminating ones when none is ready,
// sorted by address.
func endpointsOf(svc *model.Service, p model.Port) []netip.AddrPort {
	var ready, fallback []netip.AddrPort
	if p.Unresolved {
		return nil
	}
	for _, e := range svc.Endpoints {
		if !e.IP.Is4() || p.TargetPort <= 0 || p.TargetPort > 65535 {
			continue
		}
		ap := netip.AddrPortFrom(e.IP, uint16(p.TargetPort))
		switch {
		case e.Ready:
			ready = append(ready, ap)
		case e.Serving && e.Terminating:
			fallback = append(fallback, ap)
		}
	}
	if len(ready) == 0 {
		ready = fallback
	}
	sort.Slice(ready, func(i, j int) bool { return ready[i].Compare(ready[j]) < 0 })
	return ready
}

// affinityOf is the service's ClientIP affinity timeout in seconds, 0 for none.
func affinityOf(svc *model.Service) uint32 {
	if !svc.Affinity.ClientIP {
		return 0
	}
	if svc.Affinity.Timeout <= 0 {
		return model.DefaultAffinityTimeout
	}
	return uint32(svc.Affinity.Timeout)
}

// counter hands out the next backend counter.
func (t *table) counter() (uint32, error) {
	if t.nextCounter >= t.capacity.Backends {
		return 0, fmt.Errorf("ebpf: more than %d backends since the last reset (raise Capacity.Backends)", t.capacity.Backends)
	}
	t.nextCounter++
	return t.nextCounter - 1, nil
}

// port returns the table's entry for key, adding an empty one.
func (t *table) port(key svclbSvcKey) (*servicePort, error) {
	if sp, ok := t.ports[key]; ok {
		return sp, nil
	}
	if uint32(len(t.ports)) >= t.capacity.ServicePorts {
		return nil, fmt.Errorf("ebpf: more than %d service ports (raise Capacity.ServicePorts)", t.capacity.ServicePorts)
	}
	sp := &servicePort{key: key, id: t.nextID}
	t.nextID++
	t.ports[key] = sp
	return sp, nil
}

// setBackends gives sp the backends addrs, keeping the counters of those it
// already had, and returns the slots whose entry changed.
func (t *table) setBackends(sp *servicePort, addrs []netip.AddrPort) ([]uint32, error) {
	old := map[netip.AddrPort]uint32{}
	for _, b := range sp.backends {
		old[b.addr] = b.counter
	}
	next := make([]backend, len(addrs))
	var changed []uint32
	for i, a := range addrs {
		c, ok := old[a]
		if !ok {
			var err error
			if c, err = t.counter(); err != nil {
				return nil, err
			}
		}
		next[i] = backend{addr: a, counter: c}
		if i >= len(sp.backends) || sp.backends[i] != next[i] {
			changed = append(changed, uint32(i))
		}
	}
	sp.backends = next
	return changed, nil
}

// backendKV is the backends map entry of slot i of sp.
func backendKV(sp *servicePort, i uint32) (svclbBeKey, svclbBeVal) {
	b := sp.backends[i]
	return svclbBeKey{SvcId: sp.id, Slot: i},
		svclbBeVal{Ip: ip4(b.addr.Addr()), Port: port16(b.addr.Port()), Counter: b.counter}
}

// ip4 is a as the kernel stores it: network byte order in memory.
func ip4(a netip.Addr) uint32 {
	b := a.As4()
	return binary.NativeEndian.Uint32(b[:])
}

// port16 is p in network byte order in memory.
func port16(p uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], p)
	return binary.NativeEndian.Uint16(b[:])
}
