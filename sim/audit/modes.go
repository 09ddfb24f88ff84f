package audit

import (
	"fmt"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

// auditMode is what the audit knows of one kube-proxy mode: the kind of
// dump its node holds, what else the dump needs, and how a dump reduces
// to kube-proxy's facts. The entries live here, not in sim/route's, as
// the facts are the audit's own types (sim/route cannot import them).
// TestEveryModeHasAnAuditEntry fails on a mode sim/dataplane names
// without one.
type auditMode struct {
	kind string
	// check refuses a dump of kind that lacks a part (nil: none needed).
	check func(d *analyze.Dump) error
	// facts adds a dump's facts for family fam to s.
	facts func(s *factSet, fam model.Family, d *analyze.Dump, idx *owners)
}

// auditModes is every kube-proxy mode's entry.
var auditModes = map[dataplane.Mode]auditMode{
	dataplane.ModeIPTables: {
		kind: analyze.KindIPTables,
		facts: func(s *factSet, _ model.Family, d *analyze.Dump, idx *owners) {
			iptablesFacts(s, d.IPT, idx)
		},
	},
	dataplane.ModeNFTables: {
		kind: analyze.KindNFTables,
		facts: func(s *factSet, fam model.Family, d *analyze.Dump, idx *owners) {
			nftablesFacts(s, d.NFT, fam, idx)
		},
	},
	dataplane.ModeIPVS: {
		kind: analyze.KindIPVS,
		check: func(d *analyze.Dump) error {
			if d.IPT == nil {
				return fmt.Errorf("%w: an IPVS node needs its iptables-save too (kube-proxy's IPVS mode writes iptables rules beside the virtual servers)", ErrInput)
			}
			return nil
		},
		facts: func(s *factSet, _ model.Family, d *analyze.Dump, idx *owners) {
			ipvsFacts(s, d, idx)
			iptablesFacts(s, d.IPT, idx)
		},
	},
}

// auditModeOf returns mode's entry; an unknown mode is ErrInput.
func auditModeOf(mode dataplane.Mode) (auditMode, error) {
	e, ok := auditModes[mode]
	if !ok {
		_, err := dataplane.ParseMode(string(mode))
		if err == nil {
			err = fmt.Errorf("mode %q: the audit has no entry for it", mode)
		}
		return e, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return e, nil
}
