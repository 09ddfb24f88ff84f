// Package guest runs a scenario in a user-mode-linux guest when the host
// kernel lacks what a dataplane needs (IPVS), and decides when to.
//
// The protocol is data, not a command line: the host (Run) writes a Job
// into the run directory, which the guest shares read-write: the
// scenario's source and bytes, the overrides the caller made to it, the run
// prefix and the run directory. It boots the guest (lab/uml) with this
// binary running `svclab __guest-run JOB`; the guest side (Serve) reads the
// job, parses the same bytes, makes the same overrides (so the scenario
// hash is the host's) and runs it with lab/runner. The host then reads
// summary.json from the shared directory, records the guest's kernel in
// meta.json, and closes the results itself when the guest was stopped.
package guest
