package apply

import (
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/scenario"
)

// TestOpenRefuses: Open names what it cannot build, before touching a
// kernel.
func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name, dataplane, engine, want string
	}{
		{"unknown dataplane", "iptables", "", "unknown dataplane"},
		{"not linked in", string(dataplane.EBPF), "", "no constructor registered"},
		{"unknown engine", string(dataplane.NFTables), "cilium", `engine "cilium" is not linked`},
		{"engine not linked in", string(dataplane.NFTables), scenario.EngineKubeProxy, "is not linked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.dataplane, Node{Netns: "svl-none"}, Settings{Engine: tc.engine})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestNativeConstructorsRegistered: this package registers every dataplane
// that loads a kube-proxy mode, and each names itself as sim/dataplane does.
func TestNativeConstructorsRegistered(t *testing.T) {
	got := Registered()
	for _, d := range dataplane.All() {
		if d.Mode != dataplane.ModeNone && !slices.Contains(got, d.Name) {
			t.Errorf("%s loads kube-proxy's %s mode but has no constructor", d.Name, d.Mode)
		}
	}
	for _, name := range []dataplane.Name{dataplane.IPTablesLegacy, dataplane.IPTablesNFT, dataplane.NFTables} {
		d, err := Open(string(name), Node{Netns: "svl-none"}, Settings{})
		if err != nil {
			t.Fatalf("Open(%s): %v", name, err)
		}
		if d.Name() != string(name) {
			t.Errorf("Open(%s).Name() = %q", name, d.Name())
		}
	}
}

// TestRegisterRefusesUnknownAndTwice: a constructor for a name
// sim/dataplane does not list, or a second one, is a programming error.
func TestRegisterRefusesUnknownAndTwice(t *testing.T) {
	for _, name := range []dataplane.Name{"bogus", dataplane.NFTables} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%s) did not panic", name)
				}
			}()
			Register(name, newNFTablesDataplane)
		}()
	}
}
