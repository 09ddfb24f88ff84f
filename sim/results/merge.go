package results

// Merge adds a run section's summary (fairness or sweep) to s: its runs,
// points, fits and warnings, and its kind ("mixed" when the kinds differ).
// A section that returned no summary (nil) leaves s incomplete.
func (s *Summary) Merge(section *Summary) {
	if section == nil {
		s.Complete = false
		return
	}
	s.Runs = append(s.Runs, section.Runs...)
	s.Points = append(s.Points, section.Points...)
	s.WalkProbes = append(s.WalkProbes, section.WalkProbes...)
	s.SyncProbes = append(s.SyncProbes, section.SyncProbes...)
	s.AddrTypeProbes = append(s.AddrTypeProbes, section.AddrTypeProbes...)
	s.RecentProbes = append(s.RecentProbes, section.RecentProbes...)
	s.Timelines = append(s.Timelines, section.Timelines...)
	s.Fits = append(s.Fits, section.Fits...)
	s.BesideRuns = append(s.BesideRuns, section.BesideRuns...)
	s.Warnings = append(s.Warnings, section.Warnings...)
	s.Complete = s.Complete && section.Complete
	switch {
	case s.Kind == "":
		s.Kind = section.Kind
	case s.Kind != section.Kind:
		s.Kind = "mixed"
	}
}

// CheckPlanIn checks the records of the run directory dir against plan;
// records it cannot read count as none made.
func CheckPlanIn(dir string, plan *Plan) Completeness {
	records, _, err := ReadRecords(dir)
	if err != nil {
		return Completeness{Planned: plan.Len()}
	}
	return CheckPlan(plan, records)
}
