package host

import (
	"errors"
	"testing"
)

func TestPreflightErrorNamesMissingRoot(t *testing.T) {
	tests := []struct {
		problems []Problem
		notRoot  bool
	}{
		{[]Problem{{What: needsRoot, Fix: "run it with sudo"}}, true},
		{[]Problem{{What: "nft not found", Fix: "apt-get install nftables"}}, false},
		{[]Problem{{What: "nft not found"}, {What: needsRoot}}, true},
	}
	for _, tt := range tests {
		err := Error(tt.problems)
		if got := errors.Is(err, ErrNotRoot); got != tt.notRoot {
			t.Errorf("%v: errors.Is(ErrNotRoot) = %v, want %v", tt.problems, got, tt.notRoot)
		}
	}
	if Error(nil) != nil {
		t.Error("no problems: want nil")
	}
}
