//go:build tools

// Package controlplane pins the Kubernetes control plane that svclab's
// cluster integration test runs (make controlplane builds kube-apiserver and
// kube-controller-manager from k8s.io/kubernetes at the version of go.mod).
package controlplane

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
