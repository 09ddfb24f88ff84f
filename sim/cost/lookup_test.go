package cost

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/dataplane"
)

// TestEveryDataplaneModelledOrSaysWhy: each registered dataplane is either
// in the model (a lookup kind, and a payload whose size the model knows)
// or refused with the registry's reason; none is silently missing.
func TestEveryDataplaneModelledOrSaysWhy(t *testing.T) {
	for _, d := range dataplane.All() {
		name := string(d.Name)
		lookup, err := LookupOf(name)
		if d.Lookup == dataplane.NotModelled {
			if err == nil || !strings.Contains(err.Error(), d.LookupNote) {
				t.Errorf("%s: LookupOf error %v, want the registry's reason", name, err)
			}
			continue
		}
		if err != nil || lookup != d.Lookup {
			t.Errorf("%s: LookupOf = %q, %v; want %q", name, lookup, err, d.Lookup)
			continue
		}
		mode, err := ModeOf(name)
		if err != nil {
			t.Errorf("%s: ModeOf: %v", name, err)
			continue
		}
		if _, err := countsOf(mode, 10, 2); err != nil {
			t.Errorf("%s: no ruleset size for mode %s: %v", name, mode, err)
		}
	}
	if _, err := LookupOf("bogus"); err == nil || !strings.Contains(err.Error(), "iptables-legacy, iptables-nft, nftables, ipvs") {
		t.Errorf("LookupOf(bogus) = %v, want the modelled dataplanes listed", err)
	}
}
