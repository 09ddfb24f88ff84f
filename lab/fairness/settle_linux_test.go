package fairness

import (
	"context"
	"testing"

	"github.com/svclab/svclab/lab/machine"
	"github.com/svclab/svclab/lab/podserver"
)

// lagging is a lab whose pod server accepts one more connection each time
// its counts are read, up to total.
type lagging struct {
	machine.Lab
	accepted, total uint64
	reads           int
}

func (l *lagging) ServerStats() map[string]podserver.Stats {
	l.reads++
	if l.accepted < l.total {
		l.accepted++
	}
	return map[string]podserver.Stats{"web-0": {Accepted: l.accepted}}
}

// TestSettledServerStatsWaitsForTheAcceptQueue: the counts are read once
// the servers accepted every connection the client completed, and not
// waited for beyond what was asked.
func TestSettledServerStatsWaitsForTheAcceptQueue(t *testing.T) {
	tests := []struct {
		name             string
		total, want      uint64
		wantAccepted     uint64
		wantReadsAtLeast int
	}{
		{"stragglers are waited for", 5, 5, 5, 5},
		{"nothing to wait for", 5, 0, 1, 1},
		{"never reached: what there is after the timeout", 3, 4, 3, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lab := &lagging{total: tt.total}
			got := settledServerStats(context.Background(), lab, map[string]podserver.Stats{}, tt.want)
			if got["web-0"].Accepted != tt.wantAccepted || lab.reads < tt.wantReadsAtLeast {
				t.Errorf("accepted %d after %d reads, want %d after at least %d", got["web-0"].Accepted, lab.reads, tt.wantAccepted, tt.wantReadsAtLeast)
			}
		})
	}
}
