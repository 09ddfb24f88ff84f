package netns

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	vnetns "github.com/vishvananda/netns"
)

// RunDir is where named namespaces are bind-mounted, as with `ip netns`.
const RunDir = "/run/netns"

// Path returns the bind-mount path of the named namespace.
func Path(name string) string { return filepath.Join(RunDir, name) }

// Create makes a new named network namespace and leaves the calling thread
// where it was. The namespace's loopback is not brought up here.
func Create(name string) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		origin, err := vnetns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("read current netns before creating %s: %w", name, err)
			return
		}
		defer origin.Close()
		handle, err := vnetns.NewNamed(name) // switches this thread into it
		if err != nil {
			// NewNamed may have switched before failing; only unlock if we
			// are certainly back home.
			if vnetns.Set(origin) == nil {
				runtime.UnlockOSThread()
			}
			errc <- fmt.Errorf("create netns %s: %w", name, err)
			return
		}
		handle.Close()
		resetErr := resetInherited()
		if err := vnetns.Set(origin); err != nil {
			errc <- fmt.Errorf("return from netns %s: %w", name, err) // thread stays locked and dies
			return
		}
		runtime.UnlockOSThread()
		if resetErr != nil {
			resetErr = fmt.Errorf("netns %s: %w", name, resetErr)
		}
		errc <- resetErr
	}()
	return <-errc
}

// inheritedIPv4 are the IPv4 settings a new namespace copies from the
// host's (net.core.devconf_inherit_init_net 0, the default, inherits IPv4
// conf/all and conf/default from the initial namespace), reset to the
// kernel's defaults so that a lab does not depend on the host: with the
// host forwarding (as podman or docker leave it), every lab namespace
// would route what it should drop. Lab code turns forwarding on where it
// needs it (the node).
var inheritedIPv4 = []string{
	"/proc/sys/net/ipv4/conf/all/forwarding",
	"/proc/sys/net/ipv4/conf/default/forwarding",
}

// resetInherited writes the kernel's default (0) to inheritedIPv4 in the
// namespace the calling thread is in.
func resetInherited() error {
	for _, p := range inheritedIPv4 {
		if err := os.WriteFile(p, []byte("0\n"), 0o644); err != nil {
			return fmt.Errorf("reset %s: %w", p, err)
		}
	}
	return nil
}

// Delete unmounts and removes the named namespace. A namespace that does not
// exist is not an error.
func Delete(name string) error {
	if _, err := os.Stat(Path(name)); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := vnetns.DeleteNamed(name); err != nil {
		return fmt.Errorf("delete netns %s: %w", name, err)
	}
	return nil
}

// Exists reports whether the named namespace is mounted.
func Exists(name string) bool {
	_, err := os.Stat(Path(name))
	return err == nil
}

// List returns the names of mounted namespaces that start with prefix.
func List(prefix string) ([]string, error) {
	entries, err := os.ReadDir(RunDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", RunDir, err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// Open returns a handle to the named namespace; the caller closes it.
func Open(name string) (vnetns.NsHandle, error) {
	h, err := vnetns.GetFromName(name)
	if err != nil {
		return h, fmt.Errorf("open netns %s: %w", name, err)
	}
	return h, nil
}

// Do runs fn on a fresh OS thread switched into the named namespace and waits
// for it. Anything fn starts (sockets, exec'd children) belongs to that
// namespace. Goroutines that fn starts do NOT inherit the namespace.
func Do(name string, fn func() error) error {
	target, err := Open(name)
	if err != nil {
		return err
	}
	defer target.Close()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		origin, err := vnetns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("read current netns before entering %s: %w", name, err)
			return
		}
		defer origin.Close()
		if err := vnetns.Set(target); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("enter netns %s: %w", name, err)
			return
		}
		fnErr := fn()
		if err := vnetns.Set(origin); err != nil {
			errc <- errors.Join(fnErr, fmt.Errorf("return from netns %s: %w", name, err))
			return // the thread stays locked; the runtime retires it
		}
		runtime.UnlockOSThread()
		errc <- fnErr
	}()
	return <-errc
}
