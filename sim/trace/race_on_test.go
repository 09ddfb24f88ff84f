//go:build race

package trace

// raceEnabled reports a -race build, in which sync.Pool drops items and
// allocation counts mean nothing.
const raceEnabled = true
