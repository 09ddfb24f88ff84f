package driver

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/kube"
)

// TestApplyEventActsAsAnInformer: an add of a known object is an update,
// a delete hands over the object the proxier saw, and an update or delete
// of an unknown object is an error naming it.
func TestApplyEventActsAsAnInformer(t *testing.T) {
	tests := []struct {
		name    string
		known   map[string]string
		action  string
		want    string // the handler call, or the error's text
		wantErr bool
	}{
		{"add new", map[string]string{}, kube.Add, "add v2", false},
		{"add known is an update", map[string]string{"ns/a": "v1"}, kube.Add, "update v1→v2", false},
		{"update known", map[string]string{"ns/a": "v1"}, kube.Update, "update v1→v2", false},
		{"delete known hands over the old object", map[string]string{"ns/a": "v1"}, kube.Delete, "delete v1", false},
		{"update unknown", map[string]string{}, kube.Update, "update service ns/a: not known to the proxier", true},
		{"delete unknown", map[string]string{}, kube.Delete, "delete service ns/a: not known to the proxier", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			h := handlers[string]{
				add:    func(o string) { got = "add " + o },
				update: func(old, o string) { got = "update " + old + "→" + o },
				delete: func(o string) { got = "delete " + o },
			}
			err := applyEvent(tt.action, "service", "ns/a", "v2", tt.known, h)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
			if _, kept := tt.known["ns/a"]; kept == (tt.action == kube.Delete) {
				t.Errorf("after %s the store holds ns/a: %v", tt.action, kept)
			}
		})
	}
}
