package audit

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
)

// testObjects decodes testdata/cluster.yaml.
func testObjects(t testing.TB) *objects.Objects {
	t.Helper()
	raw, err := os.ReadFile("testdata/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o, err := objects.Decode("testdata/cluster.yaml", raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// nodeText renders the rules native kube-proxy writes for the test
// cluster and prints them as the node's tools print them back.
func nodeText(t testing.TB, o *objects.Objects, mode dataplane.Mode, v render.KubeProxyVersion) string {
	t.Helper()
	m, err := nodeModel(Input{Objects: o, Family: model.IPv4})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Native(m, mode, v)
	if err != nil {
		t.Fatal(err)
	}
	return DumpText(d)
}

func runText(t testing.TB, o *objects.Objects, mode dataplane.Mode, v render.KubeProxyVersion, text string) *Report {
	t.Helper()
	d, err := analyze.Load(strings.NewReader(text))
	if err != nil {
		t.Fatalf("load the tampered dump: %v\n%s", err, text)
	}
	rep, err := Run(Input{Objects: o, Mode: mode, Version: v, Dump: d, OtherVersions: render.KubeProxyVersions})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestUntouchedNativeIsClean(t *testing.T) {
	o := testObjects(t)
	for _, mode := range dataplane.Modes() {
		for _, v := range render.KubeProxyVersions {
			t.Run(string(mode)+"/"+string(v), func(t *testing.T) {
				rep := runText(t, o, mode, v, nodeText(t, o, mode, v))
				if !rep.Clean() {
					var b bytes.Buffer
					_ = rep.WriteText(&b)
					t.Fatalf("an untouched node has findings:\n%s", b.String())
				}
			})
		}
	}
}
