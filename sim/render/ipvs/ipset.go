package ipvs

import (
	"io"
	"strconv"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// RenderIPSet writes the `ipset restore` input for m: a create line for each
// of kube-proxy's 17 sets (kube-proxy always creates all of them), then the
// members. Each line carries kube-proxy's -exist, so loading it twice is
// harmless. Stats count sets and members (Elements).
func RenderIPSet(w io.Writer, m *model.Model, opts Options) (render.Stats, error) {
	c, err := takeCensus(m, opts, false)
	if err != nil {
		return render.Stats{}, err
	}
	return renderIPSet(w, m, opts, &c)
}

func renderIPSet(w io.Writer, m *model.Model, opts Options, c *census) (render.Stats, error) {
	rw := render.NewWriter(w)
	for id := setID(0); id < numSets; id++ {
		writeCreate(rw, id, c)
	}
	for i := 0; i < m.Services.Len(); i++ {
		s := m.Services.At(i)
		if programmed(s) {
			writeMembers(rw, s, m.Cluster.NodeName, opts)
		}
	}
	return rw.Flush()
}

// writeCreate writes the create line kube-proxy's ipset util would run
// (createSet), in restore syntax.
func writeCreate(rw *render.Writer, id setID, c *census) {
	d := setDefs[id]
	if d.typ == bitmapPort {
		rw.Line("create ", d.name, " ", d.typ, " range ", defaultPortRange, " -exist")
	} else {
		rw.Line("create ", d.name, " ", d.typ, " family inet hashsize ", strconv.Itoa(defaultHashSize),
			" maxelem ", strconv.Itoa(c.maxElem(id)), " -exist")
	}
	rw.CountSet()
}

// writeMembers writes service s's members: its ClusterIP on kube-ipvs0,
// and per port the ClusterIP entry, the hairpin entries of the endpoints on
// this node (all of them, ready or not: kube-proxy walks endpointsMap
// unfiltered for KUBE-LOOP-BACK) and the node port.
func writeMembers(rw *render.Writer, s *model.Service, node string, opts Options) {
	vip := s.ClusterIP.String()
	add(rw, setIPVSIPs, vip)
	for _, p := range s.Ports {
		proto := p.Protocol.Lower()
		add(rw, setClusterIP, vip, ",", proto, ":", strconv.Itoa(p.Port))
		target := strconv.Itoa(p.TargetPort)
		for _, e := range localEndpoints(s, p, node) {
			ip := e.String()
			add(rw, setLoopBack, ip, ",", proto, ":", target, ",", ip)
		}
		writeNodePort(rw, s, p, opts)
	}
}

// writeNodePort writes p's node-port member, if it has one.
func writeNodePort(rw *render.Writer, s *model.Service, p model.Port, opts Options) {
	id, ok := nodePortSet(s, p, opts)
	if !ok {
		return
	}
	port := strconv.Itoa(p.NodePort)
	if id != setNodePortSCTP {
		add(rw, id, port)
		return
	}
	for _, ip := range opts.NodeIPs {
		add(rw, id, ip.String(), ",sctp:", port)
	}
}

// add writes one member line.
func add(rw *render.Writer, id setID, entry ...string) {
	parts := make([]string, 0, 12)
	parts = append(parts, "add ", setDefs[id].name, " ")
	parts = append(parts, entry...)
	parts = append(parts, " -exist")
	rw.Line(parts...)
	rw.CountElements(1)
}
