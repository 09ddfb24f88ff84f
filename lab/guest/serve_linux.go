package guest

import (
	"context"

	"github.com/svclab/svclab/lab/runner"
)

// Serve is the guest side of Run: it reads the job at path and runs its
// scenario on the guest's kernel into the shared run directory. The host
// prints the summary; log receives the run's log lines.
func Serve(ctx context.Context, path string, log func(format string, args ...any)) error {
	j, sc, err := ReadJob(path)
	if err != nil {
		return err
	}
	opts := runner.RunOptions{Options: runner.Options{OutDir: j.OutDir, Prefix: j.Prefix, Log: log}}
	_, err = runner.Run(ctx, sc, opts)
	return err
}
