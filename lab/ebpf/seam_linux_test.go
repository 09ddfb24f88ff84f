package ebpf

import "github.com/svclab/svclab/lab/apply"

// Both types are the runner's dataplanes.
var (
	_ apply.Dataplane = (*TC)(nil)
	_ apply.Dataplane = (*Sock)(nil)
)
