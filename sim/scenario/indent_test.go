package scenario

import (
	"errors"
	"testing"
)

// TestIndentationErrorNamesTheLine: yaml.v3 reports a mis-indented key at
// the start of its block; the error names the line that is wrong.
func TestIndentationErrorNamesTheLine(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		wantLine int
	}{
		{"key indented by one space too few", "name: x\nservices:\n  - name: a\n    namespace: b\n   clusterIP: 10.96.0.1\n", 5},
		{"second item", "name: x\nservices:\n  - name: a\n    namespace: b\n  - name: c\n    namespace: b\n     clusterIP: 10.96.0.2\n    ports: []\n", 7},
	}
	for _, tt := range tests {
		_, err := decode("s.yaml", []byte(tt.yaml))
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Fatalf("%s: %v, want a FieldError", tt.name, err)
		}
		if fe.Line != tt.wantLine {
			t.Errorf("%s: line %d (%v), want %d", tt.name, fe.Line, err, tt.wantLine)
		}
	}
}
