package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/results"
)

// calibrationRoot is where svclab plan calibrate stores calibrations (one
// directory each, named by time) and where plan looks for the newest.
const calibrationRoot = "results/calibration"

// newestCalibration is the newest complete calibration under root, or "".
func newestCalibration(root string) string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	var dirs []string
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if e.IsDir() && fileExists(filepath.Join(dir, results.SummaryFile)) && fileExists(filepath.Join(dir, cost.MachineFile)) {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		return ""
	}
	slices.Sort(dirs) // names are UTC timestamps
	return dirs[len(dirs)-1]
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// planModel calibrates the model as the flags ask: --calibration, else the
// newest calibration of this machine under results/calibration, else the
// embedded default; then checks the calibration's machine against this one.
func planModel(calibration string, opts cost.Options, allowOther bool) (*cost.Model, error) {
	if calibration == "" {
		found := newestCalibration(calibrationRoot)
		if found == "" {
			m, err := checkedModel("", opts, allowOther)
			return m, usageIfOther(err)
		}
		m, err := checkedModel(found, opts, allowOther)
		if errors.Is(err, cost.ErrOtherMachine) {
			// Another machine's calibration that the user did not name:
			// fall back to the embedded default, saying so.
			m, err = checkedModel("", opts, allowOther)
			if m != nil {
				m.Warnings = append(m.Warnings, "skipped "+found+": measured on another machine (name it with --calibration and --allow-other-machine to use it)")
			}
		}
		return m, usageIfOther(err)
	}
	m, err := checkedModel(calibration, opts, allowOther)
	return m, usageIfOther(err)
}

// usageIfOther makes another machine's calibration a usage error (exit 2).
func usageIfOther(err error) error {
	if errors.Is(err, cost.ErrOtherMachine) {
		return usagef("%v", err)
	}
	return err
}

// checkedModel calibrates on dir ("" = the embedded default) and checks the
// calibration's machine against this one.
func checkedModel(calibration string, opts cost.Options, allowOther bool) (*cost.Model, error) {
	var (
		m   *cost.Model
		err error
	)
	if calibration == "" {
		m, err = cost.CalibrateDefault(opts)
	} else {
		m, err = cost.Calibrate(calibration, opts)
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	if err := m.CheckMachine(planHere(), allowOther); err != nil {
		return nil, err
	}
	return m, nil
}

// planHere is the machine plans are for (a variable so tests fix it).
var planHere = thisMachine
