// Package atomicfile writes a file whole or not at all, and never
// through a symbolic link: the data goes to a fresh temporary file in the
// target's directory (created exclusively under a random name, so a link
// planted there is never followed), which is synced and renamed over the
// target (a link at the target is replaced, not written through). On any
// failure the temporary file is removed: a full disk leaves the old file,
// or none, and no temporary file.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path with permissions perm.
func Write(path string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	if _, statErr := os.Lstat(path); errors.Is(statErr, fs.ErrNotExist) {
		GiveToInvoker(tmp) // a new file: under sudo, the invoking user's
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// RealDir creates dir (and its parents) if needed and fails if dir itself
// is a symbolic link or not a directory, so that nothing is written where
// a planted link points.
func RealDir(dir string) error {
	if err := MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("refusing to write into %s: it is a symbolic link or not a directory; remove it first", dir)
	}
	return nil
}
