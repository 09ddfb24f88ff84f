// Package uml runs a program inside a user-mode-linux (UML) guest: Debian's
// user-mode-linux kernel booted as an ordinary host process, with the host's
// filesystem as its read-only hostfs root. svclab uses it for dataplanes the
// host kernel lacks (IPVS here) and for same-kernel comparisons.
//
// Host side (Run): write a guest config and a one-line init script into a
// private temp dir, boot `linux` in its own process group, stream the
// guest program's stdout and stderr back over two serial lines, wait for the
// guest to power off (or kill the whole process group on timeout or
// cancellation), and read the exit status the guest wrote.
//
// Guest side (GuestInit, run as pid 1 by the init script as
// `<binary> __guest-init <config>`): mount proc, sys, /run and a tmpfs /tmp,
// re-expose the host directories the run needs (read-only for the binary,
// read-write for the state and work directories), point the kernel's
// modprobe at the UML module tree and preload the modules, bring lo up,
// mount cgroup2 and move into a group with the memory controller (so the
// program's kernel memory is counted apart, as on a cgroup v2-only node),
// run the program, write its exit status, sync and power off.
//
// Nothing the guest does reaches the host's network: the guest has no
// network device at all, and the UML process runs in network, mount, host
// name and IPC namespaces of its own, so even a guest system call that runs
// on the host kernel (its ptrace tracer, the UML kernel, killed while it was
// stopped there) lands in those, not the host's. It writes to the host only inside the two
// directories mounted read-write.
package uml
