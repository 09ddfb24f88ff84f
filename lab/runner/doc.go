// Package runner drives whole lab runs: it builds the topology a scenario
// needs, serves its pods, programs each dataplane, sends traffic, reads the
// kernel's counters, and streams records into a run directory.
//
// Everything a run creates is registered on the topology's teardown stack,
// which runs on return, on error, on panic and on SIGINT/SIGTERM.
package runner
