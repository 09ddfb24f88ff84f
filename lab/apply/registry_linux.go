package apply

import (
	"fmt"
	"slices"
	"sync"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/scenario"
)

// Node is what a dataplane constructor needs of a lab: where the node's
// rules go and, for the dataplanes that act at the client (eBPF), the
// client pod. It is a value, so constructors need nothing of the runner.
type Node struct {
	// Netns is the node's network namespace, where kube-proxy's rules go.
	Netns string
	// ClientNetns is the client pod's namespace; ClientVeth is the
	// node-side end of its veth ("" when the client runs on the node).
	ClientNetns, ClientVeth string
	// RunPrefix names what the run creates outside the namespaces (the
	// eBPF socket LB's cgroup), so `svclab cleanup` finds it.
	RunPrefix string
}

// Constructor builds a dataplane on a node.
type Constructor func(Node, Settings) (Dataplane, error)

// EngineConstructor builds the dataplane called name on a node with an
// external engine.
type EngineConstructor func(name dataplane.Name, n Node, s Settings) (Dataplane, error)

var registry = struct {
	sync.Mutex
	byName   map[dataplane.Name]Constructor
	byEngine map[string]EngineConstructor
}{byName: map[dataplane.Name]Constructor{}, byEngine: map[string]EngineConstructor{}}

// Register makes Open build the dataplane called name with c. The package
// that owns the dataplane calls it from init. It panics on a name
// sim/dataplane does not list, or one registered twice.
func Register(name dataplane.Name, c Constructor) {
	if _, ok := dataplane.Lookup(string(name)); !ok {
		panic(fmt.Sprintf("apply.Register: unknown dataplane %q", name))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.byName[name]; dup {
		panic(fmt.Sprintf("apply.Register: dataplane %s registered twice", name))
	}
	registry.byName[name] = c
}

// RegisterEngine makes Open build every dataplane with c when Settings
// names engine: an external engine that programs the kernel itself
// (kube-proxy's own proxier, lab/kubeproxy). It panics on an engine
// registered twice or on the native one.
func RegisterEngine(engine string, c EngineConstructor) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.byEngine[engine]; dup || engine == "" || engine == scenario.EngineNative {
		panic(fmt.Sprintf("apply.RegisterEngine: engine %q registered twice or native", engine))
	}
	registry.byEngine[engine] = c
}

// Open returns the dataplane called name (sim/dataplane) on node n, built
// by the engine s names or, natively, by the constructor its package
// registered.
func Open(name string, n Node, s Settings) (Dataplane, error) {
	info, err := dataplane.Parse(name)
	if err != nil {
		return nil, err
	}
	registry.Lock()
	engine, viaEngine := registry.byEngine[s.Engine]
	c, ok := registry.byName[info.Name]
	registry.Unlock()
	switch {
	case viaEngine:
		return engine(info.Name, n, s)
	case s.Engine != "" && s.Engine != scenario.EngineNative:
		return nil, fmt.Errorf("dataplane %s: engine %q is not linked into this binary", name, s.Engine)
	case !ok:
		return nil, fmt.Errorf("dataplane %s: no constructor registered (is its package linked in?)", name)
	}
	return c(n, s)
}

// Registered returns the dataplanes that have a constructor, in
// sim/dataplane's order.
func Registered() []dataplane.Name {
	registry.Lock()
	defer registry.Unlock()
	var out []dataplane.Name
	for _, d := range dataplane.All() {
		if _, ok := registry.byName[d.Name]; ok {
			out = append(out, d.Name)
		}
	}
	return slices.Clip(out)
}
