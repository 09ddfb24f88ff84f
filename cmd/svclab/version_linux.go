package main

import (
	"context"

	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/sim/buildinfo"
)

func init() {
	kubeProxyDrivers = func() []buildinfo.Driver { return runner.KubeProxyDrivers(context.Background()) }
}
