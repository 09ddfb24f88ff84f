// Package runner drives whole lab runs: it takes the run's lease, records
// meta.json and the plan, runs the scenario's sections (lab/fairness,
// lab/sweep, and the timeline on lab/timeline) and writes summary.json. Its
// Kernel is the real machine those sections measure on: it builds the
// topology a scenario needs, serves its pods and programs each dataplane.
//
// Everything a run creates is registered on the topology's teardown stack,
// which runs on return, on error, on panic and on SIGINT/SIGTERM.
//
// A run takes its lease from lab/session, which also starts, stops and
// cleans up after `svclab up` labs (ServeUp, here, builds and serves one).
// Whether a run goes into a user-mode-linux guest is lab/guest's decision;
// the runner only runs on the kernel it is on.
package runner
