package host

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
)

// TestCheckThisMachine runs the real probes. On this machine (a host
// kernel without IPVS, Debian's user-mode-linux installed) IPVS must be
// reported missing on the host and available through the guest.
func TestCheckThisMachine(t *testing.T) {
	labtest.RequireRoot(t)
	r := Inspect()
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("svclab doctor:\n%s", &text)
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"netns", "veth", "iptables-legacy", "conntrack"} {
		if f, _ := r.Feature(name); f.Status != OK {
			t.Errorf("%s = %+v, want ok on any lab host", name, f)
		}
	}
	if left, _ := netns.List("svl-doc"); len(left) != 0 {
		t.Errorf("probe namespaces left behind: %v", left)
	}
	ipvs, _ := r.Feature("ipvs")
	dp, _ := r.Dataplane("ipvs")
	if ipvs.Status == OK {
		t.Skipf("this host kernel has IPVS (%s): the expectations below are for one without", ipvs.Detail)
	}
	if ipvs.Status != Missing || dp.Host {
		t.Errorf("host ipvs = %+v, dataplane %+v; want missing on the host", ipvs, dp)
	}
	if r.UML.Status != OK || !r.UML.IPVS || !dp.Guest {
		t.Errorf("uml = %+v, dataplane %+v; want IPVS available through user-mode-linux", r.UML, dp)
	}
}
