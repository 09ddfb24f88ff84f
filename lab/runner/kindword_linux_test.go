package runner

import (
	"testing"

	"github.com/svclab/svclab/lab/lease"
)

// TestKindWord checks that every kind of lease svclab takes has a word of
// its own in the log line, and that a kind this svclab does not know (a
// newer one's) is still shown, quoted.
func TestKindWord(t *testing.T) {
	for _, tt := range []struct {
		kind, want string
	}{
		{lease.KindRun, "run"},
		{"", "run"},
		{lease.KindUp, "lab (svclab up)"},
		{lease.KindTest, "test"},
		{lease.KindVerifyTrace, "verify-trace"},
		{lease.KindMigrateVerify, "migrate --verify"},
		{"bench", `"bench" lease`},
	} {
		if got := kindWord(tt.kind); got != tt.want {
			t.Errorf("kindWord(%q) = %q, want %q", tt.kind, got, tt.want)
		}
	}
}
