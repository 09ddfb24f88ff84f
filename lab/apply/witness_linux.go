package apply

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/svclab/svclab/lab/netns"
)

// witnessTable is svclab's own nftables table in the node namespace that
// counts new connections by their destination after DNAT. It observes and
// never changes a verdict, and it leaves kube-proxy's rules untouched:
// kube-proxy's nftables mode writes no per-endpoint counter, and conntrack
// events are dropped when the machine is busy.
const witnessTable = "svclab-witness"

// witness counts the first packet of every new connection to one target,
// per endpoint, at the end of postrouting, in the table of the target's
// family (ip or ip6).
type witness struct {
	netns  string
	target Target
	family string
}

// startWitness loads the counting table for t's counted endpoints.
func startWitness(nsName string, t Target) (*witness, error) {
	var b strings.Builder
	family := nftFamily(t.Family())
	fmt.Fprintf(&b, "table %s %s {\n\tchain count {\n\t\ttype filter hook postrouting priority 1000; policy accept;\n", family, witnessTable)
	proto := t.Port.Protocol.Lower()
	dest := t.Address()
	for _, ep := range t.Counted() {
		ap := netip.MustParseAddrPort(ep)
		fmt.Fprintf(&b, "\t\tct state new meta l4proto %s ct original %s daddr %s ct original proto-dst %d %s daddr %s %s dport %d counter\n",
			proto, family, dest.Addr(), dest.Port(), family, ap.Addr(), proto, ap.Port())
	}
	b.WriteString("\t}\n}\n")
	w := &witness{netns: nsName, target: t, family: family}
	_ = w.remove()
	if _, err := netns.Output(nsName, []byte(b.String()), "nft", "-f", "-"); err != nil {
		return nil, fmt.Errorf("load the counting table %s in netns %s: %w", witnessTable, nsName, err)
	}
	return w, nil
}

var witnessRule = regexp.MustCompile(`ip6? daddr (\S+) \S+ dport (\d+) counter packets (\d+)`)

// Stop reads the counters and removes the table.
func (w *witness) Stop(context.Context) (Counters, error) {
	out, err := netns.Output(w.netns, nil, "nft", "list", "table", w.family, witnessTable)
	rerr := w.remove()
	if err != nil {
		return Counters{}, fmt.Errorf("read the counting table %s in netns %s: %w", witnessTable, w.netns, err)
	}
	c := Counters{Source: "nftables counter of new connections by DNAT destination", Endpoints: map[string]uint64{}}
	for _, m := range witnessRule.FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.ParseUint(m[3], 10, 64)
		ip, perr := netip.ParseAddr(m[1])
		port, _ := strconv.ParseUint(m[2], 10, 16)
		if perr != nil {
			return Counters{}, fmt.Errorf("counting table %s in netns %s: rule for %q: %w", witnessTable, w.netns, m[1], perr)
		}
		c.Endpoints[netip.AddrPortFrom(ip, uint16(port)).String()] += n
	}
	return c, rerr
}

func (w *witness) remove() error {
	_, err := netns.Output(w.netns, nil, "nft", "delete", "table", w.family, witnessTable)
	if err != nil && strings.Contains(err.Error(), "No such file or directory") {
		return nil
	}
	return err
}
