package cost

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/svclab/svclab/sim/dataplane"
)

// AnonymousSetsWarnAt is the anonymous sets of one nftables table from
// which a plan whose calibration did not time the kernel's walks per
// anonymous set (AnonymousSetWork, AnonymousSetPrice; calibrations before
// 2026-12-06) warns that its full sync is underestimated. Measured here
// (results/plan-mix-check), 2 endpoints a Service against 1 added 0.49 s
// at 2,500 Services, 2.8 s at 5,000, 10 s at 10,000 and 112 s at 20,000.
const AnonymousSetsWarnAt = 1000

// syntheticRecentTables is payloadRecentTables for n synthetic services
// with m endpoints each.
func syntheticRecentTables(mode string, n, m int) (int, error) {
	return syntheticCount(mode, n, m, payloadRecentTables)
}

// syntheticCount is count of the payload of n synthetic services with m
// endpoints each: rendered at one and two services, and grown by what each
// further service adds.
func syntheticCount(mode string, n, m int, count func(dataplane.Mode, []byte) int) (int, error) {
	md, err := dataplane.ParseMode(mode)
	if err != nil || md == dataplane.ModeIPVS {
		return 0, err
	}
	few, err := firstServices(mode, m)
	if err != nil {
		return 0, err
	}
	a1, a2 := count(md, few[0]), count(md, few[1])
	return max(a1+(a2-a1)*(n-1), 0), nil
}

// firstPayloads memoizes firstServices by mode and endpoints: a budget's
// search asks for the counts at every size it tries.
var firstPayloads sync.Map

// firstServices is mode's payloads of one to four synthetic services with
// m endpoints each, rendered once per mode and m: what a count that grows
// by each further service (or, summed, with their square or cube) is
// extended from.
func firstServices(mode string, m int) ([4][]byte, error) {
	key := syntheticShape{mode: mode, endpoints: m}
	if v, ok := firstPayloads.Load(key); ok {
		return v.([4][]byte), nil
	}
	var few [4][]byte
	for i := range few {
		var b bytes.Buffer
		if _, err := renderTo(&b, mode, i+1, m); err != nil {
			return few, err
		}
		few[i] = b.Bytes()
	}
	firstPayloads.Store(key, few)
	return few, nil
}

// RecentTablesWarnAt is the xt_recent tables an iptables payload names
// from which a plan warns that its first packets and syncs are
// underestimated. kube-proxy's iptables mode gives each ClientIP-affinity
// endpoint a recent table (-m recent --name KUBE-SEP-...), and xt_recent
// finds a table by name in one list of all of the namespace's tables
// (recent_table_lookup, net/netfilter/xt_recent.c) for every packet a
// recent rule matches and every such rule it loads. Measured here
// (results/plan-mix-check/affinity-tail): cluster-500's mix at 9,540
// Services (7,518 tables in its IPv4 payload), iptables-legacy, uniform
// p99 5,972 µs with affinity and 240 µs without, full sync 14.5 s and
// 8.41 s.
const RecentTablesWarnAt = 1000

// payloadRecentTables is the xt_recent tables an iptables payload names
// (distinct --name of its -m recent matches); 0 for the other modes.
func payloadRecentTables(mode dataplane.Mode, payload []byte) int {
	if mode != dataplane.ModeIPTables {
		return 0
	}
	names := map[string]bool{}
	eachLine(payload, func(line string) {
		if !strings.Contains(line, "-m recent") {
			return
		}
		if _, rest, ok := strings.Cut(line, " --name "); ok {
			name, _, _ := strings.Cut(rest, " ")
			names[name] = true
		}
	})
	return len(names)
}

// recentTablesWarning warns that a rule walk's first packets and syncs are
// underestimated when its payload names RecentTablesWarnAt xt_recent
// tables or more and the calibration did not time a step of their list
// (priced).
func recentTablesWarning(name string, size Size, priced bool) []string {
	if size.RecentTables < RecentTablesWarnAt || priced {
		return nil
	}
	return []string{fmt.Sprintf("%s: the payload names %d xt_recent tables (one per ClientIP-affinity endpoint); xt_recent finds a table by name in a list of all of them "+
		"for every packet a recent rule checks and every such rule it loads and unloads, which the calibration did not time (sweep.recentProbe, svclab plan calibrate): first packets to affinity Services (the p99 above all) and syncs are underestimated "+
		"(cluster-500's mix at 9,540 Services, iptables-legacy: uniform p99 5,972 µs with affinity, 240 µs without; full sync 14.5 s and 8.41 s; results/plan-mix-check)",
		name, size.RecentTables)}
}

// anonymousSetsWarning warns that an nftables full sync of size is
// underestimated when its payload has AnonymousSetsWarnAt sets in a table
// or more and the calibration did not price their walks.
func anonymousSetsWarning(name string, size Size) []string {
	sets := size.AnonymousSetWork.sets()
	if sets < AnonymousSetsWarnAt {
		return nil
	}
	return []string{fmt.Sprintf("%s: the payload holds %d sets and maps in one table (a numgen map for each Service port with two or more endpoints, an affinity set for each ClientIP-affinity endpoint); "+
		"the kernel walks all of the table's sets to name and find each new one and the whole transaction to bind an anonymous one, so a full sync grows with their square, "+
		"which this calibration did not time (meta.json anonymous_set_walk: sweeps with sync probes time it since 2026-12-06, svclab plan calibrate's among them): "+
		"20,000 Services with 2 endpoints each synced here in 115 s against 2.4 s with 1 (results/plan-mix-check): read the full sync as a lower bound or calibrate again",
		name, sets)}
}

// eachLine calls f with each line of payload.
func eachLine(payload []byte, f func(line string)) {
	for line := range bytes.Lines(payload) {
		f(strings.TrimSuffix(string(line), "\n"))
	}
}
