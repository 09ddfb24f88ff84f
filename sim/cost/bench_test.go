package cost

import "testing"

// BenchmarkCalibrateDefault: calibrating on the embedded sweep.
func BenchmarkCalibrateDefault(b *testing.B) {
	for b.Loop() {
		if _, err := CalibrateDefault(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPredict50k: a 50,000-service × 2-endpoint query on every
// dataplane, rendering each mode's payload once to count its bytes.
func BenchmarkPredict50k(b *testing.B) {
	m, err := CalibrateDefault(Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Predict(Query{Services: 50000, EndpointsPerService: 2, NewConnPerSec: 1000}); err != nil {
			b.Fatal(err)
		}
	}
}
