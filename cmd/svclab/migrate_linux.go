package main

import (
	"context"
	"io"

	"github.com/svclab/svclab/lab/migrateverify"
	"github.com/svclab/svclab/sim/migrate"
)

func init() {
	verifyKernel = func(ctx context.Context, r *migrate.Result, probes []migrate.Probe, engine string, progress io.Writer) ([]migrate.Kernel, error) {
		return migrateverify.Verify(ctx, r, probes, migrateverify.Options{Engine: engine, Log: progress})
	}
}
