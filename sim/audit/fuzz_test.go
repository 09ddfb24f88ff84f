package audit_test

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/audit/audittest"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/render"
)

// FuzzAudit audits arbitrary node dumps (seeded with the test cluster's
// rules in every mode): whatever the node holds, the audit answers or
// returns an error, and never panics; a node it calls clean has no
// finding.
func FuzzAudit(f *testing.F) {
	o := audittest.Objects(f)
	for _, mode := range dataplane.Modes() {
		f.Add(string(mode), nodeText(f, o, mode, render.LatestKubeProxy))
	}
	f.Fuzz(func(t *testing.T, mode, text string) {
		d, err := analyze.Load(strings.NewReader(text))
		if err != nil {
			return
		}
		rep, err := audit.Run(audit.Input{Objects: o, Mode: dataplane.Mode(mode), Dump: d})
		if err != nil {
			return
		}
		if rep.Clean() && len(rep.Services) > 0 {
			t.Fatalf("a clean report lists %d Services", len(rep.Services))
		}
	})
}
