package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	"github.com/svclab/svclab/lab/uml"
)

// fakeEnv is a machine like this one: root, every tool but ipvsadm, a
// kernel whose probes fail for the features in missing, and user-mode-linux
// as given.
func fakeEnv(missing map[string]bool, umlInfo *uml.Info) env {
	installed := func(name string) bool { return name != "ipvsadm" }
	return env{
		geteuid: func() int { return 0 },
		release: func() string { return "6.18.44-test" },
		lookPath: func(name string) (string, error) {
			if installed(name) {
				return "/usr/sbin/" + name, nil
			}
			return "", errors.New("not found")
		},
		run: func(name string, args ...string) (string, error) {
			if name == "dpkg-query" {
				return "", errors.New("no dpkg")
			}
			return name + " v1.0\nsecond line\n", nil
		},
		scratch: func() (string, func() error, error) { return "svl-doctest", func() error { return nil }, nil },
		uml: func() (uml.Info, error) {
			if umlInfo == nil {
				return uml.Info{}, errors.New("no user-mode-linux kernel (`linux` is not on PATH)")
			}
			return *umlInfo, nil
		},
	}
}

// withFakeProbes swaps the kernel probes for ones that fail the features
// in missing, for the duration of the test.
func withFakeProbes(t *testing.T, missing map[string]bool) {
	saved := probes
	t.Cleanup(func() { probes = saved })
	probes = map[string]probe{}
	for name, p := range saved {
		probes[name] = probe{tool: p.tool, run: func(string) (string, error) {
			if missing[name] {
				return "", errors.New(name + ": operation not supported")
			}
			return name + " works", nil
		}}
	}
}

func TestReportGolden(t *testing.T) {
	guest := uml.Info{Binary: "/usr/bin/linux", Version: "6.1.176", ModuleDir: "/usr/lib/uml/modules/6.1.176",
		IPVSModules: []string{"ip_vs", "ip_vs_rr"}, Schedulers: []string{"rr", "wrr", "lc", "sh", "mh"},
		Veth: true, Dummy: true, IPSet: true, Conntrack: true, IPTablesLegacy: true}
	tests := []struct {
		name    string
		missing map[string]bool
		uml     *uml.Info
	}{
		{"this-host", map[string]bool{"ipvs": true, "dummy": true}, &guest},
		{"no-uml", map[string]bool{"ipvs": true, "dummy": true, "nftables": true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withFakeProbes(t, tt.missing)
			r := inspect(fakeEnv(tt.missing, tt.uml))
			var text bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tt.name+".txt", text.Bytes())
			checkGolden(t, tt.name+".json", append(js, '\n'))
		})
	}
}

func TestDataplanesFollowFeatures(t *testing.T) {
	guest := uml.Info{Version: "6.1.176", IPVSModules: []string{"ip_vs", "ip_vs_rr"}, Schedulers: []string{"rr"},
		Veth: true, Dummy: true, IPSet: true, IPTablesLegacy: true} // no nf_conntrack
	withFakeProbes(t, map[string]bool{"ipvs": true})
	r := inspect(fakeEnv(map[string]bool{"ipvs": true}, &guest))
	want := map[string]Dataplane{
		"iptables-legacy": {Name: "iptables-legacy", Host: true, Guest: false}, // guest lacks nf_conntrack in this fake
		"nftables":        {Name: "nftables", Host: true, Guest: false},
		"ipvs":            {Name: "ipvs", Host: false, Guest: false}, // needs conntrack
	}
	for name, w := range want {
		if got, _ := r.Dataplane(name); got != w {
			t.Errorf("%s = %+v, want %+v", name, got, w)
		}
	}
	if !strings.Contains(strings.Join(r.Fixes, "\n"), "apt-get install -y ipvsadm") {
		t.Errorf("fixes %q do not install ipvsadm", r.Fixes)
	}
}

func TestNotRootProbesNothing(t *testing.T) {
	e := fakeEnv(nil, nil)
	e.geteuid = func() int { return 1000 }
	e.scratch = func() (string, func() error, error) { t.Fatal("made a namespace without root"); return "", nil, nil }
	r := inspect(e)
	for _, f := range r.Kernel {
		if f.Status != Unknown || !strings.Contains(f.Detail, "needs root") {
			t.Errorf("%s = %+v, want unknown (needs root)", f.Name, f)
		}
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// TestEveryFeatureProbed: doctor has a probe for each kernel feature
// sim/dataplane lists (netns is the scratch namespace itself), and each
// dataplane it gives a row needs only listed features.
func TestEveryFeatureProbed(t *testing.T) {
	for _, name := range FeatureNames[1:] {
		if probes[name].run == nil {
			t.Errorf("kernel feature %s has no probe", name)
		}
		if kernelOption(name) == "" {
			t.Errorf("kernel feature %s names no kernel option", name)
		}
	}
	for _, n := range dataplaneNeeds() {
		for _, f := range n.features {
			if !slices.Contains(FeatureNames, f) {
				t.Errorf("%s needs %s, which doctor does not probe", n.name, f)
			}
		}
	}
}
