//go:build !linux

package main

import (
	"errors"
	"io"
)

// runClusterCell runs only in a cluster run's (Linux) pod.
func runClusterCell(args []string, stdout, stderr io.Writer) error {
	return errors.New("cluster cell runs in a cluster run's pod, on Linux")
}
