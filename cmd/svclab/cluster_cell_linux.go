package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/svclab/svclab/sim/atomicfile"
	"github.com/svclab/svclab/sim/cluster"
)

// runClusterCell is what a cluster run's pod runs: the cell of its
// JOB_COMPLETION_INDEX, measured by svclab run (its table and progress on
// stderr), then the run directory, with cell.json, packed on stdout between
// markers for svclab cluster run to collect. The archive is written even
// when the run failed (a partial run is evidence); the exit status is the
// run's.
func runClusterCell(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usagef("cluster cell takes no arguments: it reads %s and %s", cluster.CellsEnv, cluster.IndexEnv)
	}
	cell, err := cluster.CellFor(os.Getenv(cluster.CellsEnv), os.Getenv(cluster.IndexEnv))
	if err != nil {
		return usagef("%v", err)
	}
	dir := cluster.CellDir
	fmt.Fprintf(stderr, "cluster cell %d: svclab run %v\n", cell.Index, cell.RunArgs(dir))
	runErr := runRun(cell.RunArgs(dir), stderr, stderr)
	info, err := json.MarshalIndent(cluster.CellInfo{Cell: cell, Node: os.Getenv(cluster.NodeEnv)}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cell directory: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, cluster.CellFile), append(info, '\n'), 0o644); err != nil {
		return fmt.Errorf("cell %s: %w", cluster.CellFile, err)
	}
	if err := cluster.Pack(stdout, os.DirFS(dir)); err != nil {
		return fmt.Errorf("cell %d: %w", cell.Index, err)
	}
	return runErr
}
