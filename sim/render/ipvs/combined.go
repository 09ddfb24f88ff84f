package ipvs

import (
	"io"
	"iter"
	"net/netip"

	"github.com/svclab/svclab/sim/dataplane"
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

// partNames name each part's tool; the iptables part is written in
// kube-proxy's iptables mode language.
var partNames = [numParts]string{"ipvsadm", "ipset", string(dataplane.ModeIPTables)}

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
	c, err := takeCensus(m, opts, true)
	if err != nil {
		return st, err
	}
	steps := []struct {
		part Part
		out  *render.Stats
		run  func() (render.Stats, error)
	}{
		{PartIPVSAdm, &st.IPVSAdm, func() (render.Stats, error) { return renderIPVSAdm(w, m, opts, &c.node) }},
		{PartIPSet, &st.IPSet, func() (render.Stats, error) { return renderIPSet(w, m, c) }},
		{PartIPTables, &st.IPTables, func() (render.Stats, error) { return renderIPTables(w, m.Cluster, c) }},
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

// Addresses yields the addresses kube-proxy binds to kube-ipvs0, the
// members of KUBE-IPVS-IPS, with no node address besides the model's
// Cluster.NodeIP: BindAddresses(m, Options{}).
func Addresses(m *model.Model) iter.Seq[netip.Addr] { return BindAddresses(m, Options{}) }

// BindAddresses yields the addresses kube-proxy binds to kube-ipvs0 on a
// node with opts' addresses, once each, in model order: the ClusterIP of
// every service it programs, and its external and load-balancer IPs that
// are not the node's own. Services of another family than the model's are
// skipped.
func BindAddresses(m *model.Model, opts Options) iter.Seq[netip.Addr] {
	return func(yield func(netip.Addr) bool) {
		n := newNode(m, opts)
		b := binder{yield: yield, seen: map[netip.Addr]bool{}}
		for i := 0; i < m.Services.Len() && !b.stop; i++ {
			s := m.Services.At(i)
			if programmed(s) && n.checkService(s) == nil {
				n.walkService(s, &b)
			}
		}
	}
}

// binder is the sink of BindAddresses.
type binder struct {
	yield func(netip.Addr) bool
	seen  map[netip.Addr]bool
	stop  bool
}

func (b *binder) add(setID, entry)                            {}
func (b *binder) loopback(*model.Service, model.Port, string) {}
func (b *binder) noNodeAccess(entry)                          {}

func (b *binder) bind(a netip.Addr, _ bool) {
	if b.stop || b.seen[a] {
		return
	}
	b.seen[a] = true
	b.stop = !b.yield(a)
}
