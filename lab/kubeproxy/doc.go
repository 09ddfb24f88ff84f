// Package kubeproxy is svclab's client of the kube-proxy driver
// (kubeproxy/, a Go module of its own that links k8s.io/kubernetes): it
// finds the driver binary built for a kube-proxy version and runs it.
//
// Render mode (this file set; no kernel, any OS) execs
// `kube-proxy-driver-VERSION render` with a kube.Request and returns the
// payload of every sync. Sync mode (process_linux.go) starts
// `kube-proxy-driver-VERSION sync` inside a lab network namespace and
// feeds it steps one at a time, returning kube-proxy's own sync reports.
// dataplane_linux.go wraps sync mode as lab/apply's "kube-proxy" engine:
// any dataplane of sim/dataplane that loads a kube-proxy mode, programmed
// by kube-proxy itself over the native dataplane of the same name.
package kubeproxy
