package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidRunName accepts run prefixes only, never a path or another name.
func TestValidRunName(t *testing.T) {
	for _, tc := range []struct {
		run  string
		want bool
	}{
		{"svl-3f9a", true},
		{"svl-", false},
		{"abc-3f9a", false},
		{"svl-3f9a/../x", false},
		{"svl-3f.9a", false},
		{"", false},
	} {
		if got := ValidRunName(tc.run); got != tc.want {
			t.Errorf("ValidRunName(%q) = %v, want %v", tc.run, got, tc.want)
		}
		if err := checkRunName(tc.run); (err == nil) != tc.want || (err != nil && !errors.Is(err, ErrNoSuchLab)) {
			t.Errorf("checkRunName(%q) = %v", tc.run, err)
		}
	}
}

// TestRemoveRecordedDirRefuses removes only svclab-named directories in
// the places svclab makes them.
func TestRemoveRecordedDirRefuses(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mine := filepath.Join(tmp, "svl-3f9a-uml")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	outside, err := os.MkdirTemp("/var/tmp", "svl-3f9a-")
	if err != nil {
		t.Skip("no /var/tmp to make a directory outside the temp dir:", err)
	}
	defer os.Remove(outside)
	for _, tc := range []struct {
		dir, wantErr string
		gone         bool
	}{
		{outside, "outside the temp", false},
		{filepath.Join(tmp, "other"), "not a svclab name", false},
		{"/home/user", "not a svclab name", false},
		{filepath.Join(tmp, "svl-3f9a-missing"), "", false},
		{mine, "", true},
	} {
		removed, err := removeRecordedDir(tc.dir)
		if gone := len(removed) > 0; gone != tc.gone || (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("removeRecordedDir(%s) = %v, %v; want removed %v, error with %q", tc.dir, removed, err, tc.gone, tc.wantErr)
		}
	}
	if _, err := os.Stat(mine); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists: %v", mine, err)
	}
}
