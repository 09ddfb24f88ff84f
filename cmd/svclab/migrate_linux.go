package main

import (
	"context"
	"io"

	"github.com/svclab/svclab/lab/migrateverify"
	"github.com/svclab/svclab/sim/migrate"
)

func init() {
	verifyKernel = func(ctx context.Context, r *migrate.Result, probes []migrate.Probe, engine string, progress io.Writer) ([]migrate.Kernel, error) {
		// SIGINT or SIGTERM stop the probes; the lab in use is removed
		// before Verify returns, and the exit code says which signal.
		ctx, in, stop := interruptContext(progress)
		defer stop()
		kernels, err := migrateverify.Verify(ctx, r, probes, migrateverify.Options{Engine: engine, Log: progress})
		if err != nil && ctx.Err() != nil {
			return nil, &exitError{code: in.exitCode(), msg: "migrate --verify interrupted; its labs were removed"}
		}
		return kernels, err
	}
	register(&command{name: migrateverify.GuestCommand, summary: "send migrate --verify's probes in a user-mode-linux guest", usage: "internal\n", run: runMigrateGuest, hidden: true})
}

// runMigrateGuest is the guest half of migrate --verify for a side this
// kernel lacks (IPVS): it reads the job the host wrote and answers beside it.
func runMigrateGuest(args []string, _, stderr io.Writer) error {
	if len(args) != 1 {
		return usagef("internal command: give the job file")
	}
	ctx, _, stop := interruptContext(stderr)
	defer stop()
	return migrateverify.ServeGuest(ctx, args[0])
}
