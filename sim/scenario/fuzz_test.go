package scenario

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, every
// error must be a *FieldError naming the file, and every scenario it
// accepts must build its model and carry only names the Kubernetes API
// accepts (the names end up in rules and comments).
// The seed corpus is in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(full))
	f.Add([]byte(base))
	f.Add([]byte(timelineBase))
	f.Fuzz(func(t *testing.T, raw []byte) {
		sc, err := Parse("f.yaml", raw)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error %v (%T) is not a *FieldError naming the file", err, err)
			}
			return
		}
		perService := 1
		if sc.Synthetic != nil {
			perService = max(sc.Synthetic.EndpointsPerService, 1)
			if m := sc.Synthetic.Mix; m != nil && m.Endpoints != nil {
				for _, w := range m.Endpoints {
					perService = max(perService, w.Value*2)
				}
			}
		}
		if sc.Synthetic != nil && sc.Synthetic.Services*perService > 20000 {
			return // valid, but too large to build in every fuzz iteration
		}
		m, err := sc.Model()
		if err != nil {
			t.Fatalf("accepted scenario does not build: %v", err)
		}
		for _, svc := range sc.Explicit() {
			if validation.IsDNS1123Label(svc.Namespace) != nil || validation.IsDNS1035Label(svc.Name) != nil {
				t.Fatalf("accepted service %q/%q", svc.Namespace, svc.Name)
			}
			for _, p := range svc.Ports {
				if p.Name != "" && validation.IsValidPortName(p.Name) != nil {
					t.Fatalf("accepted port name %q", p.Name)
				}
			}
		}
		if m.Services.Len() < len(sc.Explicit()) {
			t.Fatalf("model lost services")
		}
		if _, err := Parse("f.yaml", raw); err != nil {
			t.Fatalf("second parse of the same bytes failed: %v", err)
		}
	})
}
