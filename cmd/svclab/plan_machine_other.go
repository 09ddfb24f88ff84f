//go:build !linux

package main

import "github.com/svclab/svclab/sim/cost"

// thisMachine is unknown off Linux: plan says it cannot compare machines.
func thisMachine() *cost.Machine { return nil }
