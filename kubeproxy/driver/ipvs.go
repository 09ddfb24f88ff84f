package driver

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	utilipset "k8s.io/kubernetes/pkg/proxy/ipvs/ipset"
	ipsettest "k8s.io/kubernetes/pkg/proxy/ipvs/ipset/testing"
	utilipvs "k8s.io/kubernetes/pkg/proxy/ipvs/util"
	ipvstest "k8s.io/kubernetes/pkg/proxy/ipvs/util/testing"
)

// dumpIPVS writes the fake IPVS table in `ipvsadm -Sn` form: each virtual
// server ("-A -t IP:PORT -s rr [-p TIMEOUT] [-b mh-port]") followed by its
// real servers ("-a -t IP:PORT -r IP:PORT -m -w W"), virtual servers and
// real servers each sorted as text (kube-proxy programs them in map order).
func dumpIPVS(f *ipvstest.FakeIPVS) string {
	type block struct{ head, body string }
	var blocks []block
	for key, vs := range f.Services {
		svc := ipvsService(vs)
		head := "-A " + svc + " -s " + vs.Scheduler
		if vs.Flags&utilipvs.FlagPersistent != 0 {
			head += " -p " + strconv.Itoa(int(vs.Timeout))
		}
		if vs.Flags&utilipvs.FlagSourceHash != 0 {
			head += " -b mh-port"
		}
		var reals []string
		for _, rs := range f.Destinations[key] {
			reals = append(reals, "-a "+svc+" -r "+rs.String()+" -m -w "+strconv.Itoa(rs.Weight))
		}
		sort.Strings(reals)
		body := ""
		if len(reals) > 0 {
			body = strings.Join(reals, "\n") + "\n"
		}
		blocks = append(blocks, block{head, body})
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].head < blocks[j].head })
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.head + "\n" + bl.body)
	}
	return b.String()
}

// ipvsService is ipvsadm's service option: "-t IP:PORT", "-u IP:PORT" or
// "--sctp-service IP:PORT", an IPv6 address in brackets as ipvsadm -Sn
// prints it.
func ipvsService(vs *utilipvs.VirtualServer) string {
	addr := net.JoinHostPort(vs.Address.String(), strconv.Itoa(int(vs.Port)))
	switch strings.ToUpper(vs.Protocol) {
	case "UDP":
		return "-u " + addr
	case "SCTP":
		return "--sctp-service " + addr
	}
	return "-t " + addr
}

// dumpIPSet writes the fake ipsets in `ipset save` form: a create line per
// set, sorted by name, then the members as add lines, sorted.
func dumpIPSet(f *ipsettest.FakeIPSet) string {
	names := make([]string, 0, len(f.Sets))
	for n := range f.Sets {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		s := withDefaults(*f.Sets[n])
		if s.SetType == "bitmap:port" {
			fmt.Fprintf(&b, "create %s %s range %s\n", n, s.SetType, s.PortRange)
		} else {
			fmt.Fprintf(&b, "create %s %s family %s hashsize %d maxelem %d\n", n, s.SetType, s.HashFamily, s.HashSize, s.MaxElem)
		}
	}
	var adds []string
	for _, n := range names {
		for e := range f.Entries[n] {
			adds = append(adds, "add "+n+" "+e)
		}
	}
	sort.Strings(adds)
	for _, a := range adds {
		b.WriteString(a + "\n")
	}
	return b.String()
}

// withDefaults fills in what kube-proxy's ipset util sets when it creates
// a set (CreateSet: hashsize 1024, maxelem 65536, the default port range);
// the fake stores the set as kube-proxy passed it.
func withDefaults(s utilipset.IPSet) utilipset.IPSet {
	if s.HashSize == 0 {
		s.HashSize = 1024
	}
	if s.MaxElem == 0 {
		s.MaxElem = 65536
	}
	if s.PortRange == "" {
		s.PortRange = utilipset.DefaultPortRange
	}
	if s.HashFamily == "" {
		s.HashFamily = utilipset.ProtocolFamilyIPV4
	}
	return s
}
