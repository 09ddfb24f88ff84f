package analyze

import (
	"fmt"

	"github.com/svclab/svclab/sim/trace"
)

// Tracer traces packets through one dump, whichever mode wrote it; build
// it once (NewTracer) for many packets. Each mode's tracer stands behind
// it through an adapter (its row of modes) that turns the mode's own
// trace into the one Result.
type Tracer interface {
	// Trace walks one packet.
	Trace(p trace.Packet) (Result, error)
	// WithPaths returns a tracer over the same compiled rules that keeps
	// each trace's rule-by-rule path, whatever Options.SkipPaths said,
	// and true; false when the rules cannot be shared (an nftables
	// ruleset with chains another tracer walks): compile them again with
	// paths then.
	WithPaths() (Tracer, bool)
}

// mode is what the tracing front end knows of one kind of dump: how its
// tracer is compiled and where its services are. A new mode is one row of
// modes; TestEveryDumpKindHasAMode fails when a kind has none.
type mode struct {
	// compile builds the mode's tracer over d.
	compile func(d *Dump, opts Options) (Tracer, error)
	// targets lists d's service destinations, in the dump's order.
	targets func(d *Dump) []target
}

// modes is every dump kind's entry, keyed by Dump.Kind.
var modes = map[string]mode{
	KindIPTables: {compile: compileIPTables, targets: func(d *Dump) []target { return iptablesTargets(d.IPT) }},
	KindNFTables: {compile: compileNFTables, targets: nftablesTargets},
	KindIPVS:     {compile: compileIPVS, targets: ipvsTargets},
}

// NewTracer compiles the dump with its mode's tracer.
func NewTracer(d *Dump, opts Options) (Tracer, error) {
	m, ok := modes[d.Kind]
	if !ok {
		return nil, &DumpError{Err: fmt.Errorf("unknown dump kind %q", d.Kind)}
	}
	t, err := m.compile(d, opts)
	if err != nil {
		return nil, &DumpError{Err: err} // what the tracer refuses is in the dump
	}
	return t, nil
}

// targetsOf lists the service destinations of d (none for an unknown kind).
func targetsOf(d *Dump) []target {
	m, ok := modes[d.Kind]
	if !ok {
		return nil
	}
	return m.targets(d)
}
