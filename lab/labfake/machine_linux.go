package labfake

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync"

	"github.com/svclab/svclab/lab/apply"
	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/pktgen"
	"github.com/svclab/svclab/lab/podserver"
	"github.com/svclab/svclab/lab/procstat"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/results"
)

// Machine is a simulated host. Its zero value is ready; it records every
// lab it built.
type Machine struct {
	mu   sync.Mutex
	cpu  float64
	Labs []*Lab
	// Seed makes the traffic's endpoint choices reproducible.
	Seed uint64
	// Missing, when set, is returned by Prerequisites.
	Missing error
	// BuildError, when set, is returned by BuildLab.
	BuildError error
	// MiscountKernel makes the fake kernel count one connection fewer on
	// each target's first endpoint than the servers did.
	MiscountKernel bool
	// KernelMemoryReadings, when set, are what KernelMemory returns, one
	// after another, round and round (say, a load's growth that the own
	// cgroup's charge disagrees with); otherwise it is constant.
	KernelMemoryReadings []procstat.MemoryReading
	readings             int
	// ChainListWalkErr, when set, is returned by ChainListWalk.
	ChainListWalkErr error
	// ChainDumpWalkErr, when set, is returned by ChainDumpWalk.
	ChainDumpWalkErr error
	// AnonymousSetWalkErr, when set, is returned by AnonymousSetWalk.
	AnonymousSetWalkErr error
	// Others are what OtherRuns returns: other svclab runs live on the
	// simulated machine (none by default).
	Others []machine.OtherRun
	// OutsidePerRead is how much each OutsideCPU reading grows over the
	// one before it: the CPU other programs use on the simulated machine
	// (none by default).
	OutsidePerRead procstat.OutsideCPU
	outside        procstat.OutsideCPU
}

// BuildLab records the spec and returns a lab whose pods are the targets'
// endpoints. It fails if ctx has ended, like the real build.
func (m *Machine) BuildLab(ctx context.Context, spec machine.LabSpec) (machine.Lab, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("build fake lab %s: %w", spec.Prefix, err)
	}
	if m.BuildError != nil {
		return nil, fmt.Errorf("build fake lab %s: %w", spec.Prefix, m.BuildError)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l := &Lab{Spec: spec, machine: m, served: map[string]*podserver.Stats{}, sources: map[string]map[netip.Addr]uint64{}, rng: rand.New(rand.NewPCG(m.Seed, uint64(len(m.Labs))))}
	for _, s := range spec.Targets {
		for _, e := range s.Endpoints {
			l.served[podName(e.IP)] = &podserver.Stats{}
		}
	}
	m.Labs = append(m.Labs, l)
	return l, nil
}

// CPUSeconds advances with the simulated traffic.
func (m *Machine) CPUSeconds() (float64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cpu, nil
}

func (m *Machine) addCPU(s float64) {
	m.mu.Lock()
	m.cpu += s
	m.mu.Unlock()
}

// KernelMemory is constant (the fake kernel's rules cost nothing) unless
// KernelMemoryReadings says otherwise.
func (m *Machine) KernelMemory() (procstat.MemoryReading, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.KernelMemoryReadings) == 0 {
		return procstat.MemoryReading{Machine: 1 << 30}, nil
	}
	r := m.KernelMemoryReadings[m.readings%len(m.KernelMemoryReadings)]
	m.readings++
	return r, nil
}

// ChainListWalk is a fixed walk whose step on the full payload's layout
// costs 5 ns up to 16,000 chains and 100 ns from 128,000, rising between
// (a list that outgrows the caches), and twice that on the partial
// payload's; ChainListWalkErr, when set, is returned instead.
func (m *Machine) ChainListWalk(ctx context.Context) ([]results.ChainListStep, error) {
	if m.ChainListWalkErr != nil {
		return nil, m.ChainListWalkErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return FakeChainListWalk(), nil
}

// FakeChainListWalk is the walk the fake machine measures.
func FakeChainListWalk() []results.ChainListStep {
	full := []results.ChainListStep{{Chains: 1000, NsPerStep: 5}, {Chains: 16000, NsPerStep: 5}, {Chains: 32000, NsPerStep: 20},
		{Chains: 64000, NsPerStep: 60}, {Chains: 128000, NsPerStep: 100}, {Chains: 256000, NsPerStep: 100}}
	var out []results.ChainListStep
	for _, layout := range []struct {
		name  string
		bytes int
		times float64
	}{{results.ChainListFull, 352, 1}, {results.ChainListPartial, 1808, 2}} {
		for _, s := range full {
			out = append(out, results.ChainListStep{Chains: s.Chains, NsPerStep: layout.times * s.NsPerStep, Layout: layout.name, NodeBytes: layout.bytes})
		}
	}
	return out
}

// ChainDumpWalk is a fixed walk (FakeChainDumpWalk); ChainDumpWalkErr,
// when set, is returned instead. It refuses an empty prefix, as the
// kernel's does.
func (m *Machine) ChainDumpWalk(ctx context.Context, prefix string) ([]results.ChainListStep, error) {
	switch {
	case m.ChainDumpWalkErr != nil:
		return nil, m.ChainDumpWalkErr
	case prefix == "":
		return nil, errors.New("chain dump walk: no namespace prefix (a run's)")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return FakeChainDumpWalk(), nil
}

// FakeChainDumpWalk is the dump walk the fake machine measures: 10 ns a
// step packed, 40 ns at 12,500 chains rising to 100 ns at 50,000 spread,
// 300 chains a message.
func FakeChainDumpWalk() []results.ChainListStep {
	var out []results.ChainListStep
	for _, s := range []struct {
		layout string
		chains int
		ns     float64
	}{{results.ChainDumpPacked, 12_500, 10}, {results.ChainDumpPacked, 50_000, 10}, {results.ChainDumpSpread, 12_500, 40}, {results.ChainDumpSpread, 50_000, 100}} {
		out = append(out, results.ChainListStep{Chains: s.chains, Layout: s.layout, NsPerStep: s.ns, MinNsPerStep: 0.8 * s.ns, MaxNsPerStep: 1.2 * s.ns, ChainsPerMessage: 300})
	}
	return out
}

// AnonymousSetWalk is a fixed walk (FakeAnonymousSetWalk);
// AnonymousSetWalkErr, when set, is returned instead. It refuses an empty
// prefix, as the kernel's does.
func (m *Machine) AnonymousSetWalk(ctx context.Context, prefix string) ([]results.AnonymousSetStep, error) {
	switch {
	case m.AnonymousSetWalkErr != nil:
		return nil, m.AnonymousSetWalkErr
	case prefix == "":
		return nil, errors.New("anonymous set walks: no namespace prefix (a run's)")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return FakeAnonymousSetWalk(), nil
}

// FakeAnonymousSetWalk is the anonymous-set walks the fake machine
// measures: a naming step of 85 ns at 1,000 sets and 95 at 4,000, 10 µs
// a set listed at 1,000, a binding step of 10 ns at 30,000 entries and 60
// at 240,000.
func FakeAnonymousSetWalk() []results.AnonymousSetStep {
	var out []results.AnonymousSetStep
	for _, s := range []struct {
		walk             string
		services, length int
		ns               float64
	}{{results.AnonymousSetNaming, 1000, 1000, 85}, {results.AnonymousSetListing, 1000, 1000, 10000}, {results.AnonymousSetNaming, 4000, 4000, 95},
		{results.AnonymousSetBinding, 5000, 30000, 10}, {results.AnonymousSetBinding, 40000, 240000, 60}} {
		out = append(out, results.AnonymousSetStep{Walk: s.walk, Services: s.services, Length: s.length, NsPerStep: s.ns, MinNsPerStep: 0.9 * s.ns, MaxNsPerStep: 1.1 * s.ns,
			Rounds: 2, AddedSets: 256})
	}
	return out
}

// Hold claims nothing: a fake run leaves nothing on the host.
func (m *Machine) Hold(string) (machine.Hold, error) { return noHold{}, nil }

type noHold struct{}

func (noHold) Done(err error) error { return err }

// OtherRuns returns m.Others.
func (m *Machine) OtherRuns(string) ([]machine.OtherRun, error) { return m.Others, nil }

// OutsideCPU grows by m.OutsidePerRead with each reading.
func (m *Machine) OutsideCPU() (procstat.OutsideCPU, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.outside.Tasks += m.OutsidePerRead.Tasks
	m.outside.Steal += m.OutsidePerRead.Steal
	return m.outside, nil
}

// Prerequisites returns m.Missing.
func (m *Machine) Prerequisites([]string) error { return m.Missing }

// Lab is a simulated lab.
type Lab struct {
	Spec    machine.LabSpec
	machine *Machine
	mu      sync.Mutex
	rng     *rand.Rand
	served  map[string]*podserver.Stats
	sources map[string]map[netip.Addr]uint64 // per pod: connections by the source address it saw
	active  *Dataplane                       // the dataplane whose rules are loaded
	Closed  bool
}

func podName(ip netip.Addr) string { return "pod-" + ip.String() }

// Dataplane returns a validating fake of the named dataplane.
func (l *Lab) Dataplane(name string, s apply.Settings) (apply.Dataplane, error) {
	info, err := dataplane.Parse(name)
	if err != nil {
		return nil, err
	}
	return &Dataplane{name: name, mode: info.Mode, lookup: info.Lookup, lab: l, cfg: render.Config{Flags: s.Flags.Clone()}}, nil
}

// ServerStats is what the fake pod servers counted.
func (l *Lab) ServerStats() map[string]podserver.Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]podserver.Stats{}
	for pod, s := range l.served {
		out[pod] = *s
	}
	return out
}

// PodOf names the pod of an endpoint IP.
func (l *Lab) PodOf(ip netip.Addr) string { return podName(ip) }

// FlushConntrack does nothing: the fake keeps no flows.
func (l *Lab) FlushConntrack() error { return nil }

// PacketRate reports a rate that falls with the rules a packet walks.
func (l *Lab) PacketRate(ctx context.Context, target netip.AddrPort, startRate float64) (pktgen.Rate, error) {
	d := l.loaded()
	if d == nil {
		return pktgen.Rate{}, fmt.Errorf("fake lab %s: no rules loaded", l.Spec.Prefix)
	}
	cost := d.costMicros(target)
	return pktgen.Rate{FlowsPerSec: 1e6 / cost, Offered: 1e6 / cost, CPUMicrosPerPacket: cost, Saturated: true}, nil
}

// Close marks the lab closed; the runner must close every lab it built.
func (l *Lab) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Closed = true
	return nil
}

func (l *Lab) loaded() *Dataplane {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.active
}

// Active is the dataplane whose rules the lab loaded last (nil before any).
func (l *Lab) Active() *Dataplane { return l.loaded() }

var _ machine.Lab = (*Lab)(nil)
var _ machine.Machine = (*Machine)(nil)
