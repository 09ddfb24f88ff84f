package lease

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// InDir makes sure Dir exists and runs create, which makes a file or
// directory in it. Dir is removed when the last thing in it goes (Tidy),
// so a create that finds Dir gone in between (ErrNotExist) is run again.
func InDir(create func() error) error {
	var err error
	for range 5 {
		if err = os.MkdirAll(Dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", Dir, err)
		}
		if err = create(); !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return err
}

// Tidy removes Dir if nothing is left in it, so that svclab leaves no
// trace on the host once its last lease, lab state and run directory are
// gone. rmdir(2) refuses a directory that is not empty, so a lease taken
// meanwhile keeps it, and one being taken (InDir) tries again.
func Tidy() {
	_ = unix.Rmdir(Dir)
}
