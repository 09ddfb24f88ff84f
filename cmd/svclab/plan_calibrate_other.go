//go:build !linux

package main

import "io"

const planCalibrateUsage = "Usage: svclab plan calibrate (Linux only: it measures this node in the lab)\n"

func runPlanCalibrate([]string, io.Writer, io.Writer) error {
	return &exitError{code: 2, msg: needsLinux("plan calibrate")}
}
