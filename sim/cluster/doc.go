// Package cluster is the pure half of `svclab cluster run`: a matrix of
// scenarios × dataplanes × kube-proxy versions × node pools becomes cells,
// one Indexed Job per node pool whose indexes are the pool's cells (a Job
// has one pod template, so one node selector), and each cell's run
// directory travels back as a base64 tar between markers in the pod's log.
// It also merges the cells' run directories into one comparison.
//
// It builds objects and bytes only; creating, watching and cleaning up the
// Jobs through the API server is lab/cluster's.
package cluster
