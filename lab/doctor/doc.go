// Package doctor answers "can this machine run svclab, and how?": which
// kernel features each dataplane needs are present (each probed for real
// inside a scratch network namespace, never the host's), which tools are
// installed and at what version, whether a user-mode-linux kernel with
// IPVS can stand in for a host kernel without it, which dataplanes
// therefore run where, and what to install for whatever is missing.
// `svclab doctor [--json]` prints the Report.
package doctor
