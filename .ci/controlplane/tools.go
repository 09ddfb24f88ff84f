//go:build tools

// Package controlplane pins the Kubernetes control plane that svclab's
// cluster integration test runs: make controlplane builds kube-apiserver and
// ./job-controller (Kubernetes' Job controller alone) from k8s.io/kubernetes
// at the version of go.mod, and etcd from ./etcd, its own module.
package controlplane

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
