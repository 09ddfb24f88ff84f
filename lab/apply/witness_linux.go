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
// per endpoint, at the end of postrouting.
type witness struct {
	netns  string
	target Target
}

// startWitness loads the counting table for t's ready endpoints.
func startWitness(nsName string, t Target) (*witness, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "table ip %s {\n\tchain count {\n\t\ttype filter hook postrouting priority 1000; policy accept;\n", witnessTable)
	proto := t.Port.Protocol.Lower()
	for _, ep := range t.Service.ReadyEndpoints(t.Port) {
		ap := netip.MustParseAddrPort(ep)
		fmt.Fprintf(&b, "\t\tct state new meta l4proto %s ct original ip daddr %s ct original proto-dst %d ip daddr %s %s dport %d counter\n",
			proto, t.Service.ClusterIP, t.Port.Port, ap.Addr(), proto, ap.Port())
	}
	b.WriteString("\t}\n}\n")
	w := &witness{netns: nsName, target: t}
	_ = w.remove()
	if _, err := netns.Output(nsName, []byte(b.String()), "nft", "-f", "-"); err != nil {
		return nil, fmt.Errorf("load the counting table %s in netns %s: %w", witnessTable, nsName, err)
	}
	return w, nil
}

var witnessRule = regexp.MustCompile(`ip daddr (\S+) \S+ dport (\d+) counter packets (\d+)`)

// Stop reads the counters and removes the table.
func (w *witness) Stop(context.Context) (Counters, error) {
	out, err := netns.Output(w.netns, nil, "nft", "list", "table", "ip", witnessTable)
	rerr := w.remove()
	if err != nil {
		return Counters{}, fmt.Errorf("read the counting table %s in netns %s: %w", witnessTable, w.netns, err)
	}
	c := Counters{Source: "nftables counter of new connections by DNAT destination", Endpoints: map[string]uint64{}}
	for _, m := range witnessRule.FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.ParseUint(m[3], 10, 64)
		c.Endpoints[m[1]+":"+m[2]] += n
	}
	return c, rerr
}

func (w *witness) remove() error {
	_, err := netns.Output(w.netns, nil, "nft", "delete", "table", "ip", witnessTable)
	if err != nil && strings.Contains(err.Error(), "No such file or directory") {
		return nil
	}
	return err
}
