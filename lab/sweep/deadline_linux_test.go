package sweep

import (
	"testing"
	"time"
)

func TestRepetitionFits(t *testing.T) {
	now := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		deadline time.Time
		rep      int
		slowest  time.Duration
		want     bool
	}{
		{"no deadline runs every repetition", time.Time{}, 40, time.Hour, true},
		{"the minimum runs past the deadline", now.Add(-time.Minute), 2, time.Minute, true},
		{"past the minimum, a repetition that would end late does not start", now.Add(30 * time.Second), 3, time.Minute, false},
		{"past the minimum, one that ends in time starts", now.Add(2 * time.Minute), 3, time.Minute, true},
		{"ending exactly at the deadline starts", now.Add(time.Minute), 5, time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Deadline: tt.deadline}.withDefaults()
			if got := o.repetitionFits(tt.rep, now, tt.slowest); got != tt.want {
				t.Errorf("repetitionFits(%d, slowest %v, deadline %v) = %v, want %v", tt.rep, tt.slowest, tt.deadline, got, tt.want)
			}
		})
	}
}
