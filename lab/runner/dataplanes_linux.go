package runner

// The packages that register dataplane constructors with lab/apply
// (lab/apply registers its own): linking them in is all the runner does
// per dataplane. TestEveryDataplaneHasAConstructor fails when a dataplane
// of sim/dataplane has none.
import (
	_ "github.com/svclab/svclab/lab/ebpf"
	_ "github.com/svclab/svclab/lab/kubeproxy"
)
