package ipvs

import (
	"io"
	"net/netip"
	"strconv"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// RenderIPSet writes the `ipset restore` input for m: a create line for each
// of kube-proxy's 17 sets (kube-proxy always creates all of them), then the
// members. Each line carries kube-proxy's -exist, so loading it twice is
// harmless. Stats count sets and members (Elements).
func RenderIPSet(w io.Writer, m *model.Model, opts Options) (render.Stats, error) {
	c, err := takeCensus(m, opts, true)
	if err != nil {
		return render.Stats{}, err
	}
	return renderIPSet(w, m, c)
}

func renderIPSet(w io.Writer, m *model.Model, c *census) (render.Stats, error) {
	rw := render.NewWriter(w)
	for id := setID(0); id < numSets; id++ {
		writeCreate(rw, id, c)
	}
	sw := setWriter{rw: rw, n: &c.node}
	if len(c.external) > 0 {
		sw.bound = map[netip.Addr]bool{}
	}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		if programmed(s) {
			c.node.walkService(s, &sw)
		}
	}
	return rw.Flush()
}

// writeCreate writes the create line kube-proxy's ipset util would run
// (createSet), in restore syntax.
func writeCreate(rw *render.Writer, id setID, c *census) {
	name := c.node.setName(id)
	if d := setDefs[id]; d.typ == bitmapPort {
		rw.Line("create ", name, " ", d.typ, " range ", defaultPortRange, " -exist")
	} else {
		rw.Line("create ", name, " ", d.typ, " family ", c.node.hashFamily(), " hashsize ", strconv.Itoa(defaultHashSize),
			" maxelem ", strconv.Itoa(c.maxElem(id)), " -exist")
	}
	rw.CountSet()
}

// setWriter writes the members a service walk yields as add lines.
type setWriter struct {
	rw *render.Writer
	n  *node
	// bound are the KUBE-IPVS-IPS members written, kept only when external
	// or load-balancer IPs are bound (they may repeat; ClusterIPs do not).
	bound map[netip.Addr]bool
	// last and lastText cache the address formatted last (a service's
	// ClusterIP is written twice in a row).
	last     netip.Addr
	lastText string
}

// text formats a, reusing the last formatting.
func (sw *setWriter) text(a netip.Addr) string {
	if a != sw.last || sw.lastText == "" {
		sw.last, sw.lastText = a, a.String()
	}
	return sw.lastText
}

func (sw *setWriter) add(id setID, e entry) {
	name := sw.n.setName(id)
	switch setDefs[id].typ {
	case bitmapPort:
		sw.line(name, strconv.Itoa(e.port))
	case hashIP:
		sw.line(name, sw.text(e.ip))
	case hashIPPort:
		sw.line(name, sw.text(e.ip), ",", e.proto, ":", strconv.Itoa(e.port))
	case hashIPPortIP:
		sw.line(name, e.ip.String(), ",", e.proto, ":", strconv.Itoa(e.port), ",", e.ip2.String())
	case hashIPPortNet:
		sw.line(name, e.ip.String(), ",", e.proto, ":", strconv.Itoa(e.port), ",", e.net.String())
	}
}

func (sw *setWriter) loopback(s *model.Service, p model.Port, proto string) {
	name := sw.n.setName(setLoopBack)
	target := strconv.Itoa(p.TargetPort)
	for _, e := range localEndpoints(s, p, sw.n.name) {
		ip := e.String()
		sw.line(name, ip, ",", proto, ":", target, ",", ip)
	}
}

func (sw *setWriter) bind(a netip.Addr, _ bool) {
	if sw.bound != nil {
		if sw.bound[a] {
			return
		}
		sw.bound[a] = true
	}
	sw.line(sw.n.setName(setIPVSIPs), sw.text(a))
}

func (sw *setWriter) noNodeAccess(entry) {}

// line writes one member line of set name.
func (sw *setWriter) line(name string, member ...string) {
	parts := make([]string, 0, 12)
	parts = append(parts, "add ", name, " ")
	parts = append(parts, member...)
	parts = append(parts, " -exist")
	sw.rw.Line(parts...)
	sw.rw.CountElements(1)
}
