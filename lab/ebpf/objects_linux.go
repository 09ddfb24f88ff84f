package ebpf

import (
	"errors"
	"fmt"

	cebpf "github.com/cilium/ebpf"
)

// Capacity bounds the maps, which are sized when the programs load.
type Capacity struct {
	// ServicePorts is the most service ports (ClusterIP, port, protocol).
	ServicePorts uint32
	// Backends is the most backend slots over all service ports; it also
	// sizes the counters, one per backend ever programmed since a Reset.
	Backends uint32
	// Flows is the size of each LRU flow map (forward and reverse).
	Flows uint32
	// Affinity is the size of the LRU ClientIP affinity map.
	Affinity uint32
}

// DefaultCapacity holds 100,000 services with a few ports and endpoints
// each. The hash maps are allocated as entries arrive; the LRU maps and the
// counters are allocated in full.
var DefaultCapacity = Capacity{ServicePorts: 1 << 18, Backends: 1 << 20, Flows: 1 << 17, Affinity: 1 << 16}

// load loads the BPF collection with maps sized by c. The caller closes the
// objects.
func load(c Capacity) (*svclbObjects, error) {
	spec, err := loadSvclb()
	if err != nil {
		return nil, fmt.Errorf("ebpf: read embedded objects: %w", err)
	}
	sizes := map[string]uint32{
		svclbMapServices: c.ServicePorts, svclbMapBackends: c.Backends, svclbMapCounters: c.Backends,
		svclbMapFlows: c.Flows, svclbMapRevFlows: c.Flows, svclbMapAffinity: c.Affinity,
	}
	for name, n := range sizes {
		if n == 0 {
			return nil, fmt.Errorf("ebpf: map %s: capacity 0", name)
		}
		spec.Maps[name].MaxEntries = n
	}
	objs := &svclbObjects{}
	if err := spec.LoadAndAssign(objs, nil); err != nil {
		var verr *cebpf.VerifierError
		if errors.As(err, &verr) {
			return nil, fmt.Errorf("ebpf: load programs: %+v", verr)
		}
		return nil, fmt.Errorf("ebpf: load programs and maps: %w", err)
	}
	return objs, nil
}
