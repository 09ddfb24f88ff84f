package traffic

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPinThread(t *testing.T) {
	allowed, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	last := allowed[len(allowed)-1]
	tests := []struct {
		name    string
		cpu     int
		wantErr bool
	}{
		{"an allowed CPU", last, false},
		{"the first allowed CPU", allowed[0], false},
		{"negative", -1, true},
		{"beyond the mask", maxCPUs - 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var before unix.CPUSet
			if err := unix.SchedGetaffinity(0, &before); err != nil {
				t.Fatal(err)
			}
			restore, err := pinThread(tt.cpu)
			if tt.wantErr {
				if err == nil {
					restore()
					t.Fatalf("pinThread(%d): no error, want one", tt.cpu)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var pinned unix.CPUSet
			if err := unix.SchedGetaffinity(0, &pinned); err != nil {
				t.Fatal(err)
			}
			if pinned.Count() != 1 || !pinned.IsSet(tt.cpu) {
				t.Errorf("pinned to %d: the thread may run on %d CPUs (CPU %d set: %v)", tt.cpu, pinned.Count(), tt.cpu, pinned.IsSet(tt.cpu))
			}
			restore()
			var after unix.CPUSet
			if err := unix.SchedGetaffinity(0, &after); err != nil {
				t.Fatal(err)
			}
			if after != before {
				t.Errorf("after restore the thread may run on %d CPUs, before on %d", after.Count(), before.Count())
			}
		})
	}
}
