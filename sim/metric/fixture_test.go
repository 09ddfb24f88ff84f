package metric

import (
	"github.com/svclab/svclab/sim/results/resultstest"
)

// The synthetic sweep of the results tests, for the aggregation tests.
var (
	sweepServices = resultstest.SweepServices
	sweepPoint    = resultstest.Point
	sweepRecords  = resultstest.SweepRecords
	pointRecord   = resultstest.PointRecord
)
