package runner

import (
	"os"

	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/lab/verifytrace"
)

// The runner is the CLI's one door into the lab; these pass through to the
// packages behind it.

// Inspect is `svclab doctor`'s report (see lab/host).
func Inspect() host.Report { return host.Inspect() }

// GuestInitCommand is the argument with which a user-mode-linux guest
// starts this binary as its init (see lab/uml).
const GuestInitCommand = uml.GuestInitCommand

// GuestInit is pid 1 of a user-mode-linux guest this binary booted.
func GuestInit(args []string) error { return uml.GuestInit(args) }

// InGuest reports whether this process runs inside a guest svclab booted.
func InGuest() bool { return os.Getenv(uml.GuestEnv) == "1" }

// TraceCheck is one dump's verify-trace outcome (see lab/verifytrace).
type TraceCheck = verifytrace.Result

// TraceCheckOptions set how many packets verify-trace sends, and its seed.
type TraceCheckOptions = verifytrace.Options

// VerifyTraceFile loads a dump into a scratch node and checks the tracer
// against the kernel packet by packet (see lab/verifytrace).
func VerifyTraceFile(path string, opts TraceCheckOptions) (TraceCheck, error) {
	return verifytrace.VerifyFile(path, opts)
}
