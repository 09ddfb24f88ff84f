package verifytrace

import (
	"errors"
	"fmt"
	"os"

	"github.com/svclab/svclab/lab/lease"
)

// labs is the lease every scratch lab of this process holds while it
// lives: svl-vt-<pid>, which names all of them (svl-vt-<pid>-<n>-node and
// -client), so that `svclab cleanup` removes what a killed verify-trace
// left, and the nft monitor it started if that still runs.
var labs = lease.Shared{Prefix: fmt.Sprintf("svl-vt-%d", os.Getpid()), Kind: lease.KindVerifyTrace}

// ErrInterrupted is returned when Options.Done closed during a run.
var ErrInterrupted = errors.New("verify-trace interrupted")

// stopped returns ErrInterrupted once opts.Done is closed.
func (opts Options) stopped() error {
	select {
	case <-opts.Done:
		return ErrInterrupted
	default:
		return nil
	}
}
