// Package kube turns a svclab model into what kube-proxy receives from the
// API server: v1 Services and discovery/v1 EndpointSlices, and a model
// change into the object events (add, update, delete) that carry it. It
// also defines the small JSON protocol between svclab and the kube-proxy
// driver (kubeproxy/, a separate Go module): a Request with the objects
// and the changes, answered by one Sync line per sync; and its loop form
// (loop.go: a LoopRequest, then a stream of LoopEvents, answered by
// LoopSync and Metrics lines) in which kube-proxy's own sync loop runs.
//
// The package uses k8s.io/api and k8s.io/apimachinery types only; it never
// imports k8s.io/kubernetes, and it makes no syscalls.
package kube
