// Package cluster is the pure half of `svclab cluster run`: a matrix of
// scenarios × dataplanes × kube-proxy versions × node pools becomes cells,
// one Indexed Job per node pool whose indexes are the pool's cells (a Job
// has one pod template, so one node selector), and each cell's run
// directory travels back as a base64 tar between markers in the pod's log.
// It also merges the cells' run directories into one comparison.
//
// For `svclab cluster audit` it builds the ConfigMap that carries the
// cluster's objects (gzipped) and the DaemonSet whose pods audit each
// node's rules, frames each node's report in its pod's log the way a cell
// travels, and summarises the reports by node.
//
// It builds objects and bytes only; creating, watching and cleaning up the
// Jobs and the DaemonSet through the API server is lab/cluster's.
package cluster
