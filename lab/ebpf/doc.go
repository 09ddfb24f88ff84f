// Package ebpf is svclab's eBPF service dataplane: a Cilium-style kube-proxy
// replacement built from BPF programs and maps, beside kube-proxy's own
// modes on the same lab.
//
// Two dataplanes share one set of maps (bpf/svclb.h):
//
//   - "ebpf" (TC): tc programs on the node-side veth of each client pod
//     (tcx ingress and egress; clsact with cls_bpf direct-action where the
//     kernel has no tcx). Ingress looks up ClusterIP:port:proto, picks a
//     backend uniformly, remembers the flow in LRU maps and rewrites the
//     destination; egress rewrites the source of replies back.
//   - "ebpf-sock" (Sock): a cgroup/connect4 program that rewrites the
//     address a socket connects to (Cilium's socket LB), for the tasks of a
//     cgroup2 the package creates under the run prefix.
//
// Both register their constructors with lab/apply (register_linux.go), so
// the runner opens them by name.
//
// Both count each new connection per backend in a per-CPU array, the
// kernel's witness of the split (Counters.Source "BPF backend map").
//
// Nothing outlives the process: programs are attached through BPF links the
// process holds (no bpffs pins), so closing them or the process dying
// detaches everything. The clsact fallback qdisc and the cgroup directory
// are the two objects a killed run can leave; the qdisc goes with the lab's
// veth when its namespace is deleted, and Cleanup removes the cgroup.
package ebpf
