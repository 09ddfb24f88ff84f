package host

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// realHost asks the running system.
var realHost = hostEnv{
	lookPath:   exec.LookPath,
	geteuid:    os.Geteuid,
	probeNetns: probeNetns,
}

// probeNetns checks that this process can make a network namespace: it
// unshares one on a throwaway thread that stays locked, so the runtime
// discards the thread, and the namespace with it, when the probe ends.
// Nothing is mounted and no other thread is touched.
func probeNetns() error {
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return fmt.Errorf("kernel without network namespaces: %w", err)
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("unshare(CLONE_NEWNET): %w", err)
			return
		}
		errc <- nil
	}()
	return <-errc
}
