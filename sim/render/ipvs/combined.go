package ipvs

import (
	"io"
	"iter"
	"net/netip"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Part names one of the three payloads of a combined IPVS-mode file.
type Part int

// The payloads, in the order Render writes them (ipsets must exist before
// iptables rules that match them are loaded).
const (
	PartIPVSAdm Part = iota
	PartIPSet
	PartIPTables
	numParts
)

var partHeaders = [numParts]string{"# ipvsadm -R", "# ipset restore", "# iptables-restore"}
var partNames = [numParts]string{"ipvsadm", "ipset", "iptables"}

// Header is the comment line that opens the part in a combined file.
func (p Part) Header() string { return partHeaders[p] }

// String names the part's tool.
func (p Part) String() string { return partNames[p] }

// Stats describes a combined render: each payload, and the whole file
// (the sums plus the three header lines).
type Stats struct {
	IPVSAdm, IPSet, IPTables render.Stats
	Total                    render.Stats
}

// Render writes all three payloads for `svclab render --mode ipvs`, each
// after its header line: ipvsadm -R input, ipset restore input, then the
// iptables-restore payload. Split cuts such a file back apart.
func Render(w io.Writer, m *model.Model, opts Options) (Stats, error) {
	var st Stats
	c, err := takeCensus(m, opts, false)
	if err != nil {
		return st, err
	}
	steps := []struct {
		part Part
		out  *render.Stats
		run  func() (render.Stats, error)
	}{
		{PartIPVSAdm, &st.IPVSAdm, func() (render.Stats, error) { return renderIPVSAdm(w, m, opts) }},
		{PartIPSet, &st.IPSet, func() (render.Stats, error) { return renderIPSet(w, m, opts, &c) }},
		{PartIPTables, &st.IPTables, func() (render.Stats, error) { return renderIPTables(w, m.Cluster, opts, &c) }},
	}
	for _, step := range steps {
		n, err := io.WriteString(w, step.part.Header()+"\n")
		st.Total.Lines++
		st.Total.Bytes += n
		if err != nil {
			return st, err
		}
		if *step.out, err = step.run(); err != nil {
			return st, err
		}
		addStats(&st.Total, *step.out)
	}
	return st, nil
}

func addStats(sum *render.Stats, s render.Stats) {
	sum.Lines += s.Lines
	sum.Bytes += s.Bytes
	sum.Rules += s.Rules
	sum.Chains += s.Chains
	sum.Sets += s.Sets
	sum.Elements += s.Elements
}

// Addresses yields the addresses kube-proxy binds to kube-ipvs0: the
// ClusterIP of every service it programs, once per service, in model order.
// The same addresses are the members of KUBE-IPVS-IPS.
func Addresses(m *model.Model) iter.Seq[netip.Addr] {
	return func(yield func(netip.Addr) bool) {
		for i := 0; i < m.Services.Len(); i++ {
			s := m.Services.At(i)
			if programmed(s) && !yield(s.ClusterIP) {
				return
			}
		}
	}
}
