package audit

import (
	"strings"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// DumpText prints a loaded dump back as the node's tools print it, in one
// text analyze.Load reads: iptables-save form; an nft transaction; for
// IPVS, `svclab render --mode ipvs`'s three parts (ipvsadm -Sn, ipset
// save, iptables-save).
func DumpText(d *analyze.Dump) string {
	var b strings.Builder
	switch d.Kind {
	case analyze.KindIPTables:
		_, _ = d.IPT.WriteTo(&b)
	case analyze.KindNFTables:
		_ = d.NFT.WriteTransaction(&b)
	case analyze.KindIPVS:
		b.WriteString(ipvs.PartIPVSAdm.Header() + "\n")
		_, _ = d.IPVS.WriteTo(&b)
		b.WriteString(ipvs.PartIPSet.Header() + "\n")
		_, _ = d.IPSets.WriteTo(&b)
		b.WriteString(ipvs.PartIPTables.Header() + "\n")
		_, _ = d.IPT.WriteTo(&b)
	}
	return b.String()
}
