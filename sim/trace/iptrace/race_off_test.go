//go:build !race

package iptrace

const raceEnabled = false
