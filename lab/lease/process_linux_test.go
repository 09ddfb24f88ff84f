package lease

import (
	"os"
	"syscall"
	"testing"
)

// TestPendingHas reads SIGKILL from the shared and the thread's pending
// masks of /proc/PID/status.
func TestPendingHas(t *testing.T) {
	for _, tc := range []struct {
		name, status string
		want         bool
	}{
		{"none", "Name:\tsvclab\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n", false},
		{"shared kill", "SigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n", true},
		{"thread kill", "SigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n", true},
		{"term only", "SigPnd:\t0000000000000000\nShdPnd:\t0000000000004000\n", false},
		{"blocked kill is not pending", "SigBlk:\t0000000000000100\n", false},
		{"garbage", "ShdPnd:\tzz\n", false},
	} {
		if got := pendingHas(tc.status, syscall.SIGKILL); got != tc.want {
			t.Errorf("%s: pendingHas = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDyingSelf: a running process is not dying; a process that is not
// the recorded one (another start time) is not either.
func TestDyingSelf(t *testing.T) {
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if self.Dying() {
		t.Error("this test process reads as dying")
	}
	if (Process{PID: os.Getpid(), Start: self.Start + 1}).Dying() {
		t.Error("a reused PID reads as the recorded process dying")
	}
}
