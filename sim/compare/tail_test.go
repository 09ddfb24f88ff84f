package compare

import (
	"math"
	"testing"
)

// TestTailP: the exceedance count and its exact probability, checked
// against C(m,k)/C(n+m,k) worked by hand.
func TestTailP(t *testing.T) {
	base := []float64{1, 2, 3, 4}
	tests := []struct {
		name  string
		new   []float64
		wantK int
		wantP float64
	}{
		{"none above", []float64{1, 2, 3, 4}, 0, 1},
		{"one above of 4", []float64{1, 2, 3, 9}, 1, 4.0 / 8},
		{"two above of 4", []float64{1, 2, 8, 9}, 2, 6.0 / 28},
		{"all four above", []float64{5, 6, 7, 8}, 4, 1.0 / 70},
		{"a tie is not above", []float64{4, 4, 4, 4}, 0, 1},
	}
	for _, tt := range tests {
		k, p := tailP(base, tt.new)
		if k != tt.wantK || math.Abs(p-tt.wantP) > 1e-12 {
			t.Errorf("%s: k=%d p=%v, want %d %v", tt.name, k, p, tt.wantK, tt.wantP)
		}
	}
}
