// Package lease records who owns a lab while it lives, so that `svclab
// cleanup` can tell a killed run's leftovers from a live run's objects.
//
// Each run, each `svclab up` lab and each privileged test holds a lease: a
// file /run/svclab/PREFIX.lease that its process keeps locked with flock(2)
// for as long as it lives. The kernel drops the lock when the process dies,
// however it dies (kill -9 included), so "the lock is free" means "the
// owner is gone". The file records the run prefix (every namespace the run
// creates is named PREFIX or PREFIX-…, including PREFIX-<hex>-… for a sweep's
// per-point labs), the processes it started (PID and start time, so a
// reused PID is never signalled), and the directories and cgroups it made.
// Directories in /run/svclab named PREFIX-… belong to the run as its
// namespaces do (StateDirs).
// Objects are recorded before they are created. /run/svclab itself goes
// with the last thing in it (Tidy; InDir makes it again).
package lease
