package results_test

import (
	"reflect"
	"testing"

	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/results"
)

// TestRuleSetStatsIsRenderStats: the recorded payload keeps render.Stats's
// fields and JSON names, though results does not import the renderers.
func TestRuleSetStatsIsRenderStats(t *testing.T) {
	a, b := reflect.TypeOf(results.RuleSetStats{}), reflect.TypeOf(render.Stats{})
	if a.NumField() != b.NumField() {
		t.Fatalf("%d fields, render.Stats has %d", a.NumField(), b.NumField())
	}
	for i := 0; i < a.NumField(); i++ {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || fa.Type != fb.Type || fa.Tag.Get("json") != fb.Tag.Get("json") {
			t.Errorf("field %d: %s %s %q, render.Stats has %s %s %q", i, fa.Name, fa.Type, fa.Tag.Get("json"), fb.Name, fb.Type, fb.Tag.Get("json"))
		}
	}
}
