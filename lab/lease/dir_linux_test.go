package lease

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
)

// TestDirGoesWithTheLastLease: Release leaves Dir while another lease is
// in it and removes it with the last one. Other processes (tests of other
// packages) may hold leases meanwhile, so "removed" is read as "gone, or
// not empty".
func TestDirGoesWithTheLastLease(t *testing.T) {
	requireRoot(t)
	first, err := Acquire(fmt.Sprintf("svl-dt-%d1", os.Getpid()), "test")
	if err != nil {
		t.Fatal(err)
	}
	second, err := Acquire(fmt.Sprintf("svl-dt-%d2", os.Getpid()), "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(Path(second.Prefix())); err != nil {
		t.Fatalf("the second lease went with the first: %v", err)
	}
	if err := second.Release(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Second); ; time.Sleep(10 * time.Millisecond) {
		entries, err := os.ReadDir(Dir)
		if errors.Is(err, os.ErrNotExist) || len(entries) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is left empty after the last lease (err %v)", Dir, err)
		}
	}
}

// TestInDirRetriesWhenDirWentMeanwhile: a create that finds Dir gone
// (another process's Tidy between MkdirAll and create) is run again; any
// other error is returned at once.
func TestInDirRetriesWhenDirWentMeanwhile(t *testing.T) {
	requireRoot(t)
	tests := []struct {
		name      string
		failures  []error
		wantCalls int
		wantErr   bool
	}{
		{"succeeds at once", nil, 1, false},
		{"dir gone twice", []error{os.ErrNotExist, os.ErrNotExist}, 3, false},
		{"dir always gone", []error{os.ErrNotExist, os.ErrNotExist, os.ErrNotExist, os.ErrNotExist, os.ErrNotExist}, 5, true},
		{"another error", []error{os.ErrPermission}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := InDir(func() error {
				calls++
				if calls <= len(tt.failures) {
					return tt.failures[calls-1]
				}
				return nil
			})
			if calls != tt.wantCalls || (err != nil) != tt.wantErr {
				t.Fatalf("InDir: %d calls, err %v; want %d calls, error %v", calls, err, tt.wantCalls, tt.wantErr)
			}
		})
	}
	Tidy()
}
