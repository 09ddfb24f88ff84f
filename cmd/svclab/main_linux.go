package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/lab/session"
	"github.com/svclab/svclab/lab/uml"
)

func init() {
	beforeDispatch = func(args []string) (bool, int) {
		if len(args) == 0 || args[0] != uml.GuestInitCommand {
			return false, 0
		}
		// pid 1 of a user-mode-linux guest this binary booted (see lab/uml).
		if err := uml.GuestInit(args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "svclab:", err)
			return true, 1
		}
		return true, 0
	}
	inputErrors = append(inputErrors, func(err error) bool {
		var ie *runner.InputError
		return errors.As(err, &ie) || errors.Is(err, session.ErrNoSuchLab)
	})
}
