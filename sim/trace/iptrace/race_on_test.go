//go:build race

package iptrace

// raceEnabled reports a -race build, in which sync.Pool drops items and
// allocation counts mean nothing.
const raceEnabled = true
