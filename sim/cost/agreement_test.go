package cost

import "testing"

// TestSimAgreesWithLab is issue 5's acceptance check over the recorded
// sweep in testdata/sweep1: calibrated on the points with N ≤ 10,000, the
// model (FitAll: a line through every calibration point) predicts the p50
// measured at the largest N (20,000, last position) within 15% wherever it
// claims to be valid (R² ≥ 0.95). Rows where it does not claim validity are
// logged and recorded in the golden file, whatever their error. The
// upper-half alternative is recorded too, never asserted.
func TestSimAgreesWithLab(t *testing.T) {
	run, err := LoadRun(sweepDir)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := AgreementTable(run)
	if err != nil {
		t.Fatal(err)
	}
	table := AgreementMarkdown(rows)
	t.Logf("sim against lab, %s:\n%s", run.Source, table)
	got := map[string]AgreementRow{}
	for _, r := range rows {
		got[r.Dataplane] = r
	}
	for _, dp := range []string{"iptables-legacy", "iptables-nft"} {
		r, ok := got[dp]
		if !ok {
			t.Fatalf("no agreement row for %s", dp)
		}
		if r.Services != 20000 || r.CalibrationMaxN != AgreementMaxN || r.Model.Points != 4 {
			t.Errorf("%s: held out N %d, calibrated on N ≤ %d with %d points; want 20000, 10000, 4", dp, r.Services, r.CalibrationMaxN, r.Model.Points)
		}
		switch {
		case r.Model.Valid && !r.Model.Within:
			t.Errorf("%s: the model claims validity (R² %.3f) but misses: predicted %.1f µs, measured %.1f µs (%+.1f%%)",
				dp, r.Model.R2, r.Model.Predicted.Value, r.MeasuredP50us, r.Model.ErrorPct)
		case !r.Model.Valid:
			t.Logf("%s: model not claimed valid (R² %.3f); predicted %.1f µs, measured %.1f µs (%+.1f%%, within 15%%: %v)",
				dp, r.Model.R2, r.Model.Predicted.Value, r.MeasuredP50us, r.Model.ErrorPct, r.Model.Within)
		}
	}
	if !got["iptables-nft"].Model.Valid {
		t.Error("iptables-nft's line should be valid on this run (R² ≈ 0.997)")
	}
	checkGolden(t, "agreement.md", table)
}

// TestAgreementNeedsHeldOutPoint: a run whose largest N is within the
// calibration range cannot be checked.
func TestAgreementNeedsHeldOutPoint(t *testing.T) {
	run := synthRun()
	var small []int
	kept := run.Points[:0]
	for _, p := range run.Points {
		if p.Services <= AgreementMaxN {
			kept = append(kept, p)
			small = append(small, p.Services)
		}
	}
	run.Points = kept
	if _, err := AgreementTable(run); err == nil {
		t.Errorf("agreement table built from sizes %v only", small)
	}
}

// TestAgreementOnSyntheticLine: on an exactly linear sweep the check
// passes with a valid model.
func TestAgreementOnSyntheticLine(t *testing.T) {
	run := synthRun()
	run.Points = run.Points[:len(run.Points)-1] // drop the wild point
	rows, err := AgreementTable(run)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !r.Model.Valid || !r.Model.Within || !near(r.Model.Predicted.Value, r.MeasuredP50us, 0.05) {
			t.Errorf("%s: %+v", r.Dataplane, r)
		}
	}
}

// TestSimAgreesWithRecordedSweepQuick runs the same check over the sweep
// committed under results/sweep-quick (the README's table): calibrated on
// N ≤ 10,000, predicting p50 at 20,000 services for the last position.
func TestSimAgreesWithRecordedSweepQuick(t *testing.T) {
	run, err := LoadRun("../../results/sweep-quick")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := AgreementTable(run)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sim against lab, %s:\n%s", run.Source, AgreementMarkdown(rows))
	claimed := 0
	for _, r := range rows {
		if r.Services != 20000 || r.CalibrationMaxN != AgreementMaxN {
			t.Errorf("%s: held out N %d, calibrated on N ≤ %d; want 20000 and 10000", r.Dataplane, r.Services, r.CalibrationMaxN)
		}
		if !r.Model.Valid {
			continue
		}
		claimed++
		if !r.Model.Within {
			t.Errorf("%s: the model claims validity (R² %.3f) but misses: predicted %.1f µs, measured %.1f µs (%+.1f%%)",
				r.Dataplane, r.Model.R2, r.Model.Predicted.Value, r.MeasuredP50us, r.Model.ErrorPct)
		}
	}
	if claimed == 0 {
		t.Fatal("the model claims validity for no dataplane: nothing was checked")
	}
}
