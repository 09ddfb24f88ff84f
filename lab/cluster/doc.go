// Package cluster runs `svclab cluster run`'s Jobs (built by sim/cluster)
// through a Kubernetes API server with client-go: it creates them, reports
// progress while they run, collects each finished cell's run directory
// from its pod's log, and deletes the Jobs and their pods on success,
// failure and cancellation (Ctrl-C). The AuditRunner does the same for
// `svclab cluster audit`'s ConfigMap and DaemonSet, reading each node's
// audit from its pod's log. Unlike the rest of lab/ it needs no
// privilege on this machine: the privileged part runs in the cluster's pods.
package cluster
