package host

import "github.com/svclab/svclab/lab/ebpf"

// probeBPF checks, in a scratch namespace, what the kernel offers the eBPF
// dataplanes (lab/ebpf.Probe: BTF, JIT, tcx, clsact, cgroup/connect4, and
// whether svclab's programs pass the verifier).
func probeBPF(scratch func() (string, func() error, error)) []Feature {
	ns, cleanup, err := scratch()
	if err != nil {
		return []Feature{{Name: "bpf", Status: Unknown, Detail: "no scratch namespace: " + err.Error()}}
	}
	defer cleanup()
	var out []Feature
	for _, f := range ebpf.Probe(ns) {
		st := OK
		if !f.OK {
			st = Missing
		}
		out = append(out, Feature{Name: f.Name, Status: st, Detail: f.Detail})
	}
	return out
}
