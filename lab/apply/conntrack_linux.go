package apply

import (
	"bufio"
	"bytes"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svclab/svclab/lab/netns"
)

// ConntrackDestinations counts the connection-tracking entries in a
// namespace whose original destination is vip, by where the kernel's NAT
// sent them (the reply direction's source, "IP:port"). It is a kernel-side
// witness of a split that needs no counter in the rules: every new
// connection leaves an entry, and an entry closed with an RST stays for
// nf_conntrack_tcp_timeout_close (10 s) before it expires.
func ConntrackDestinations(nsName string, vip netip.AddrPort, proto string) (map[string]uint64, error) {
	out, err := netns.Output(nsName, nil, "conntrack", "-L", "-p", proto, "--orig-dst", vip.Addr().String(), "--dport", strconv.Itoa(int(vip.Port())))
	if err != nil {
		return nil, err
	}
	counts := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if ep, ok := replySource(sc.Text()); ok {
			counts[ep]++
		}
	}
	return counts, sc.Err()
}

// replySource reads the reply direction's "src=IP ... sport=P" of one
// `conntrack -L` line: the second src= and the second sport=.
func replySource(line string) (string, bool) {
	var srcs, sports []string
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "src="); ok {
			srcs = append(srcs, v)
		} else if v, ok := strings.CutPrefix(f, "sport="); ok {
			sports = append(sports, v)
		}
	}
	if len(srcs) < 2 || len(sports) < 2 {
		return "", false
	}
	return srcs[1] + ":" + sports[1], true
}
