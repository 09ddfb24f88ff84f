// Package runner drives whole lab runs: it builds the topology a scenario
// needs, serves its pods, programs each dataplane, sends traffic, reads the
// kernel's counters, and streams records into a run directory.
//
// Everything a run creates is registered on the topology's teardown stack,
// which runs on return, on error, on panic and on SIGINT/SIGTERM.
//
// A run takes its lease from lab/session, which also starts, stops and
// cleans up after `svclab up` labs (ServeUp, here, builds and serves one).
// Whether a run goes into a user-mode-linux guest is lab/guest's decision;
// the runner only runs on the kernel it is on.
package runner
