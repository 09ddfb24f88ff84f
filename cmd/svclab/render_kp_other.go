//go:build !linux

package main

import (
	"io"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// renderWithKubeProxy needs the kube-proxy driver, which runs on Linux.
func renderWithKubeProxy(io.Writer, string, *model.Model, render.KubeProxyVersion) error {
	return &exitError{code: 2, msg: "svclab render --engine kube-proxy needs Linux (the kube-proxy driver); the native engine works here"}
}
