package ebpf

import (
	"errors"
	"fmt"
	"sync"
	"time"

	cebpf "github.com/cilium/ebpf"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// CounterSource names what Count counts.
const CounterSource = "BPF backend map"

// lb is what both dataplanes share: the loaded objects and the table that
// mirrors their maps. Its methods are safe for concurrent use.
type lb struct {
	mu    sync.Mutex
	objs  *svclbObjects
	table *table
}

func newLB(c Capacity) (*lb, error) {
	objs, err := load(c)
	if err != nil {
		return nil, err
	}
	return &lb{objs: objs, table: newTable(c)}, nil
}

// program writes the whole model m into empty maps with batch updates and
// times the writes (building the entries in memory is not timed, as a
// restore tool's rendering is not).
func (l *lb) program(m *model.Model) (Sync, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.resetLocked(); err != nil {
		return Sync{}, err
	}
	var svcKeys []svclbSvcKey
	var svcVals []svclbSvcVal
	var beKeys []svclbBeKey
	var beVals []svclbBeVal
	for i := 0; i < m.Services.Len(); i++ {
		svc := m.Services.At(i)
		for _, p := range svc.Ports {
			key, ok := serviceKey(svc, p)
			if !ok {
				continue
			}
			sp, err := l.table.port(key)
			if err != nil {
				return Sync{}, err
			}
			sp.affinity = affinityOf(svc)
			if _, err := l.table.setBackends(sp, endpointsOf(svc, p)); err != nil {
				return Sync{}, err
			}
			for slot := range sp.backends {
				k, v := backendKV(sp, uint32(slot))
				beKeys, beVals = append(beKeys, k), append(beVals, v)
			}
			svcKeys, svcVals = append(svcKeys, key), append(svcVals, sp.value())
		}
	}
	start := time.Now()
	if err := batchUpdate(l.objs.Backends, beKeys, beVals); err != nil {
		return Sync{}, err
	}
	if err := batchUpdate(l.objs.Services, svcKeys, svcVals); err != nil {
		return Sync{}, err
	}
	took := time.Since(start)
	return Sync{Payload: payload(len(svcKeys), len(beKeys)), Duration: took}, nil
}

// payload describes n service entries and b backend entries: Rules counts
// service ports, Elements all map entries, Bytes the keys and values written.
func payload(n, b int) render.Stats {
	const svcEntry, beEntry = 8 + 16, 8 + 12
	return render.Stats{Rules: n, Elements: n + b, Bytes: n*svcEntry + b*beEntry}
}

// batchUpdate writes keys and values in one BPF_MAP_UPDATE_BATCH.
func batchUpdate[K, V any](m *cebpf.Map, keys []K, vals []V) error {
	if len(keys) == 0 {
		return nil
	}
	if _, err := m.BatchUpdate(keys, vals, nil); err != nil {
		return fmt.Errorf("ebpf: batch update of %d entries in map %s: %w", len(keys), m, err)
	}
	return nil
}

// apply adds c.Endpoint to service c.Service of m: for each port whose
// backend list changes, the changed backend slots are written, then the
// service entry (so the new count never points at a missing slot), then
// slots past the new count are deleted.
func (l *lb) apply(m *model.Model, c Change) (Sync, error) {
	if c.Service < 0 || c.Service >= m.Services.Len() {
		return Sync{}, fmt.Errorf("ebpf: change to service %d of a model with %d", c.Service, m.Services.Len())
	}
	svc := *m.Services.At(c.Service)
	svc.Endpoints = append(append([]model.Endpoint(nil), svc.Endpoints...), c.Endpoint)
	l.mu.Lock()
	defer l.mu.Unlock()
	var took time.Duration
	services, backends := 0, 0
	for _, p := range svc.Ports {
		key, ok := serviceKey(&svc, p)
		if !ok {
			continue
		}
		sp, err := l.table.port(key)
		if err != nil {
			return Sync{}, err
		}
		before := len(sp.backends)
		changed, err := l.table.setBackends(sp, endpointsOf(&svc, p))
		if err != nil {
			return Sync{}, err
		}
		start := time.Now()
		if err := l.writePort(sp, changed, before); err != nil {
			return Sync{}, err
		}
		took += time.Since(start)
		services++
		backends += len(changed) + max(0, before-len(sp.backends))
	}
	return Sync{Payload: payload(services, backends), Duration: took}, nil
}

// writePort writes the changed slots of sp, its service entry, and deletes
// the slots from len(sp.backends) up to before.
func (l *lb) writePort(sp *servicePort, changed []uint32, before int) error {
	for _, slot := range changed {
		k, v := backendKV(sp, slot)
		if err := l.objs.Backends.Put(k, v); err != nil {
			return fmt.Errorf("ebpf: write backend %d of service port %d: %w", slot, sp.id, err)
		}
	}
	v := sp.value()
	if err := l.objs.Services.Put(sp.key, v); err != nil {
		return fmt.Errorf("ebpf: write service port %d: %w", sp.id, err)
	}
	for slot := len(sp.backends); slot < before; slot++ {
		k := svclbBeKey{SvcId: sp.id, Slot: uint32(slot)}
		if err := l.objs.Backends.Delete(k); err != nil && !errors.Is(err, cebpf.ErrKeyNotExist) {
			return fmt.Errorf("ebpf: delete backend %d of service port %d: %w", slot, sp.id, err)
		}
	}
	return nil
}

// reset empties every map but the counters, which it zeroes.
func (l *lb) reset() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.resetLocked()
}

func (l *lb) resetLocked() error {
	var svcKeys []svclbSvcKey
	var beKeys []svclbBeKey
	for key, sp := range l.table.ports {
		svcKeys = append(svcKeys, key)
		for slot := range sp.backends {
			beKeys = append(beKeys, svclbBeKey{SvcId: sp.id, Slot: uint32(slot)})
		}
	}
	errs := []error{batchDelete(l.objs.Services, svcKeys), batchDelete(l.objs.Backends, beKeys),
		clearMap[svclbFlowKey](l.objs.Flows), clearMap[svclbFlowKey](l.objs.RevFlows),
		clearMap[svclbAffKey](l.objs.Affinity), l.zeroCounters(l.table.nextCounter)}
	l.table.reset()
	return errors.Join(errs...)
}

// zeroCounters zeroes counters 0..n-1.
func (l *lb) zeroCounters(n uint32) error {
	if n == 0 {
		return nil
	}
	cpus, err := cebpf.PossibleCPU()
	if err != nil {
		return fmt.Errorf("ebpf: count CPUs: %w", err)
	}
	keys := make([]uint32, n)
	for i := range keys {
		keys[i] = uint32(i)
	}
	return batchUpdate(l.objs.Counters, keys, make([]uint64, int(n)*cpus))
}

// batchDelete deletes keys in one BPF_MAP_DELETE_BATCH.
func batchDelete[K any](m *cebpf.Map, keys []K) error {
	if len(keys) == 0 {
		return nil
	}
	if _, err := m.BatchDelete(keys, nil); err != nil && !errors.Is(err, cebpf.ErrKeyNotExist) {
		return fmt.Errorf("ebpf: batch delete of %d entries in map %s: %w", len(keys), m, err)
	}
	return nil
}

// clearMap deletes every entry of a map whose keys are K.
func clearMap[K any](m *cebpf.Map) error {
	var keys []K
	var k K
	it := m.Iterate()
	var discard []byte
	for it.Next(&k, &discard) {
		keys = append(keys, k)
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("ebpf: list map %s: %w", m, err)
	}
	for _, key := range keys {
		if err := m.Delete(key); err != nil && !errors.Is(err, cebpf.ErrKeyNotExist) {
			return fmt.Errorf("ebpf: clear map %s: %w", m, err)
		}
	}
	return nil
}

// close releases the programs and maps.
func (l *lb) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.objs.Close(); err != nil {
		return fmt.Errorf("ebpf: close objects: %w", err)
	}
	return nil
}
