package cost

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDefaultCalibrationIsTheRecordedRun: the embedded default calibration
// is the recorded sweep, byte for byte (`go generate ./sim/cost` copies it
// again after DefaultRecordedRun is re-recorded).
func TestDefaultCalibrationIsTheRecordedRun(t *testing.T) {
	for embedded, recorded := range map[string][]byte{"summary.json": defaultSummary, "meta.json": defaultMeta, "results.jsonl": defaultResults} {
		path := filepath.Join("..", "..", filepath.FromSlash(DefaultRecordedRun), embedded)
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(recorded, want) {
			t.Errorf("the embedded copy of %s differs from the recorded run: run go generate ./sim/cost", path)
		}
	}
}
