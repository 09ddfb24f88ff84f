package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// The user who ran svclab through sudo owns what svclab creates for them:
// run directories, their records, reports and plots. Without this, `sudo
// svclab run` leaves root's directories that the user's next `svclab
// report` cannot write to. Only what svclab itself creates is handed over,
// never a file or directory that was there before.

// invoker is the user and group sudo ran svclab for (SUDO_UID, SUDO_GID),
// when svclab runs as root and they name another user.
func invoker() (uid, gid int, ok bool) {
	if os.Geteuid() != 0 {
		return 0, 0, false
	}
	uid, err1 := strconv.Atoi(os.Getenv("SUDO_UID"))
	gid, err2 := strconv.Atoi(os.Getenv("SUDO_GID"))
	if err1 != nil || err2 != nil || uid <= 0 || gid < 0 {
		return 0, 0, false
	}
	return uid, gid, true
}

// GiveToInvoker hands path, which svclab has just created, to the user who
// ran svclab through sudo; it does nothing otherwise. It is best effort: a
// file system that refuses root's chown (root-squashed NFS) leaves path
// root's, readable as before.
func GiveToInvoker(path string) {
	if uid, gid, ok := invoker(); ok {
		_ = os.Lchown(path, uid, gid)
	}
}

// MkdirAll is os.MkdirAll that gives each directory it creates, and only
// those, to the user who ran svclab through sudo.
func MkdirAll(dir string, perm os.FileMode) error {
	var created []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		created = append(created, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	for i := len(created) - 1; i >= 0; i-- {
		GiveToInvoker(created[i])
	}
	return nil
}
