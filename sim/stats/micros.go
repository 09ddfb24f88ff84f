package stats

import "time"

// Micros is d in microseconds, the unit of svclab's latency records
// (P50us, P99us, ...).
func Micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
