package objects

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic, every
// error must be an *Error naming the file, and every file it accepts must
// give model services whose ports are in range, and an anonymised copy
// that decodes again to as many services of the same types.
// The seed corpus is in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(defaultsYAML))
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},"spec":{"clusterIP":"10.0.0.1","ports":[{"port":53}]}}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 1<<16 {
			return
		}
		o, err := Decode("f.yaml", raw)
		if err != nil {
			var oe *Error
			if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "f.yaml: ") {
				t.Fatalf("error %v (%T) is not an *Error naming the file", err, err)
			}
			return
		}
		for _, s := range o.Services {
			for _, p := range s.Ports {
				if p.Port < 1 || p.Port > 65535 || p.TargetPort < 1 || p.TargetPort > 65535 || p.NodePort < 0 || p.NodePort > 65535 {
					t.Fatalf("service %s/%s: port %+v out of range", s.Namespace, s.Name, p)
				}
			}
		}
		var b bytes.Buffer
		if err := Encode(&b, Anonymize(o, []byte("fuzz"))); err != nil {
			t.Fatal(err)
		}
		back, err := Decode("anon.yaml", b.Bytes())
		if err != nil {
			t.Fatalf("the anonymised copy does not decode: %v\n%s", err, b.String())
		}
		if len(back.Services) != len(o.Services) {
			t.Fatalf("%d services, anonymised %d", len(o.Services), len(back.Services))
		}
		for i := range o.Services {
			if back.Services[i].Type != o.Services[i].Type || back.Services[i].Skipped() != o.Services[i].Skipped() || len(back.Services[i].Endpoints) != len(o.Services[i].Endpoints) {
				t.Fatalf("service %d changed shape: %+v → %+v", i, o.Services[i], back.Services[i])
			}
		}
	})
}
