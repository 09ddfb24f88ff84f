// Package preflight says, before a lab run touches the kernel, what the host
// lacks: root, the tools svclab execs, or working network namespaces. Each
// problem comes with the command that fixes it.
package preflight
