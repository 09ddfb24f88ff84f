package ebpf

import (
	"context"
	"errors"
	"fmt"

	cebpf "github.com/cilium/ebpf"
)

// count opens a count of t's backends.
func (l *lb) count(_ context.Context, t Target) (Counting, error) {
	key, ok := serviceKey(t.Service, t.Port)
	if !ok {
		return nil, fmt.Errorf("ebpf: service %s port %s/%d is not IPv4 TCP or UDP", t.Service.Name, t.Port.Protocol, t.Port.Port)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	sp, ok := l.table.ports[key]
	if !ok {
		return nil, fmt.Errorf("ebpf: service %s port %d is not programmed", t.Service.Name, t.Port.Port)
	}
	c := &counting{lb: l, key: key, start: map[uint32]uint64{}}
	for _, b := range sp.backends {
		v, err := l.read(b.counter)
		if err != nil {
			return nil, err
		}
		c.start[b.counter] = v
	}
	return c, nil
}

// read sums counter i over all CPUs.
func (l *lb) read(i uint32) (uint64, error) {
	var per []uint64
	if err := l.objs.Counters.Lookup(i, &per); err != nil {
		return 0, fmt.Errorf("ebpf: read counter %d: %w", i, err)
	}
	var sum uint64
	for _, v := range per {
		sum += v
	}
	return sum, nil
}

// counting is an open count: the counters of a service port's backends
// when it began.
type counting struct {
	lb    *lb
	key   svclbSvcKey
	start map[uint32]uint64
}

// Stop returns each backend's new connections since Count. A backend added
// meanwhile counts from 0: its counter was zero when it was handed out.
func (c *counting) Stop(_ context.Context) (Counters, error) {
	c.lb.mu.Lock()
	defer c.lb.mu.Unlock()
	out := Counters{Source: CounterSource, Endpoints: map[string]uint64{}}
	sp, ok := c.lb.table.ports[c.key]
	if !ok {
		return out, errors.New("ebpf: the counted service port was removed (Reset or FullSync) before Stop")
	}
	for _, b := range sp.backends {
		v, err := c.lb.read(b.counter)
		if err != nil {
			return out, err
		}
		out.Endpoints[b.addr.String()] = v - c.start[b.counter]
	}
	return out, nil
}

// memory is the kernel's memlock accounting of every map, in bytes.
func (l *lb) memory() (map[string]uint64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]uint64{}
	for name, m := range map[string]*cebpf.Map{
		svclbMapServices: l.objs.Services, svclbMapBackends: l.objs.Backends, svclbMapCounters: l.objs.Counters,
		svclbMapFlows: l.objs.Flows, svclbMapRevFlows: l.objs.RevFlows, svclbMapAffinity: l.objs.Affinity,
	} {
		info, err := m.Info()
		if err != nil {
			return nil, fmt.Errorf("ebpf: info of map %s: %w", name, err)
		}
		if v, ok := info.Memlock(); ok {
			out[name] = v
		}
	}
	return out, nil
}
