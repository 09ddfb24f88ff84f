// Package host inspects the machine svclab runs on, read-only, and says
// what it lacks.
//
// Before a lab run touches the kernel, Check lists what the host lacks for
// it: root, the tools svclab execs, or working network namespaces, each
// problem with the command that fixes it (Error turns them into one error).
//
// Inspect answers "can this machine run svclab, and how?" (`svclab
// doctor`): which kernel features each dataplane needs are present (each
// probed for real inside a scratch network namespace, never the host's),
// which tools are installed and at what version, whether a user-mode-linux
// kernel with IPVS can stand in for a host kernel without it, which
// dataplanes therefore run where, and what to install for whatever is
// missing.
package host
