package cost

import (
	"math"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
)

// AnonymousSetWork is the list walking the kernel does to load an nftables
// payload's anonymous sets and maps (kube-proxy's numgen dispatch map of
// each Service port with two or more endpoints, a source-range set) in one
// transaction, two walks per set, both read in net/netfilter/
// nf_tables_api.c and seen in a profile of such a load (perf, 8,000
// two-endpoint Services: 48% of the load's samples in the second, 25% in
// the first; results/plan-anonymous-sets):
//   - naming: nf_tables_set_alloc_name gives each new anonymous set the
//     lowest free number by reading the name of every set its table
//     already holds (sscanf), and nf_tables_newset then compares the new
//     name with each of them: a step per set before it in its table;
//   - binding: when its rule binds it, __nft_set_trans_bind walks the
//     whole transaction's commit list, every entry added before it (each
//     chain, rule, set, element command of the batch), to mark the set's
//     entries bound.
//
// Loading A sets costs about A²/2 naming steps and A·T/2 binding steps for
// a batch of T entries: the growth with the square that made nftables'
// full sync of a cluster's mix take 99.6 s where its rules predicted 8.7
// (results/plan-mix-check).
type AnonymousSetWork struct {
	// Sets is the most anonymous sets one table holds; AllSets all of the
	// payloads' (a family's table each).
	Sets    int `json:"sets"`
	AllSets int `json:"all_sets"`
	// NameSteps is the sets passed by the naming walks, BindSteps the
	// commit-list entries passed by the binding walks.
	NameSteps float64 `json:"name_steps"`
	BindSteps float64 `json:"bind_steps"`
}

// anonymousSetEntries is the commit-list entries an anonymous set adds
// besides its rule's: the new set and its elements (added in one message,
// which the kernel keeps as one entry).
const anonymousSetEntries = 2

// payloadAnonymousSetWork counts the naming and binding steps of loading
// an nftables payload as one transaction (nft -f) into a namespace
// without its tables (a cold start, as the lab and lab/nftsetwalk load):
// each command a commit-list entry (a flush of a chain just added none),
// each anonymous set in a rule (anonymousSetsIn) two more; zero for the
// other modes.
func payloadAnonymousSetWork(mode dataplane.Mode, payload []byte) AnonymousSetWork {
	var w AnonymousSetWork
	if mode != dataplane.ModeNFTables {
		return w
	}
	perTable := map[string]int{}
	entries := 0
	eachLine(payload, func(line string) {
		fields := strings.SplitN(line, " ", 5) // VERB OBJECT FAMILY TABLE rest
		if len(fields) < 4 || !nftCommand(fields[0]) {
			return
		}
		if len(fields) == 5 && fields[1] == "rule" {
			table := fields[2] + " " + fields[3]
			for range anonymousSetsIn(fields[4]) {
				w.NameSteps += float64(perTable[table])
				w.BindSteps += float64(entries)
				perTable[table]++
				w.AllSets++
				entries += anonymousSetEntries
			}
			w.Sets = max(w.Sets, perTable[table])
		}
		if fields[0] != "flush" {
			entries++
		}
	})
	return w
}

// anonymousSetsIn counts the anonymous sets and maps a rule's text makes
// the kernel create: every map and verdict map written between braces,
// and every set of two elements or more (nft 1.0.6 turns a set of one, as
// in kube-proxy's "ip saddr != { 203.0.113.0/24 }", into a plain
// comparison, which its netlink debug output shows: no __set%d).
func anonymousSetsIn(rule string) int {
	n := 0
	for rest := rule; ; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			return n
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return n
		}
		before, body := strings.TrimRight(rest[:open], " "), rest[open+1:open+end]
		if strings.HasSuffix(before, "map") || strings.Contains(body, ",") {
			n++
		}
		rest = rest[open+end+1:]
	}
}

// nftCommand says whether verb begins a command of an nft -f script.
func nftCommand(verb string) bool {
	switch verb {
	case "add", "create", "insert", "replace", "flush", "delete", "destroy":
		return true
	}
	return false
}

// syntheticAnonymousSetWork is payloadAnonymousSetWork for n synthetic
// services with m endpoints each. A service's lines follow each other, so
// the k-th service's sets pass k services' worth of sets and entries more
// than the first's: the work of n services is P + s·n + d·n(n−1)/2 (P the
// lines before the first service's), solved from renders of one, two and
// three services.
func syntheticAnonymousSetWork(mode string, n, m int) (AnonymousSetWork, error) {
	md, err := dataplane.ParseMode(mode)
	if err != nil || md != dataplane.ModeNFTables || n < 1 {
		return AnonymousSetWork{}, err
	}
	few, err := firstServices(mode, m)
	if err != nil {
		return AnonymousSetWork{}, err
	}
	var w [3]AnonymousSetWork
	for i := range w {
		w[i] = payloadAnonymousSetWork(md, few[i])
	}
	grow := func(of func(AnonymousSetWork) float64) float64 {
		one, two, three := of(w[0]), of(w[1]), of(w[2])
		d := three - 2*two + one
		s := two - one - d
		p := one - s
		x := float64(n)
		return max(p+s*x+d*x*(x-1)/2, 0)
	}
	sets := w[0].Sets + (w[1].Sets-w[0].Sets)*(n-1)
	return AnonymousSetWork{
		Sets:      sets,
		AllSets:   sets,
		NameSteps: grow(func(a AnonymousSetWork) float64 { return a.NameSteps }),
		BindSteps: grow(func(a AnonymousSetWork) float64 { return a.BindSteps }),
	}, nil
}

// NFTablesAnonymousSetWork is the naming and binding steps of loading an
// nftables payload (nft -f input) as one transaction: what lab/nftsetwalk
// divides its loads' times by.
func NFTablesAnonymousSetWork(payload []byte) AnonymousSetWork {
	return payloadAnonymousSetWork(dataplane.ModeNFTables, payload)
}

// sets is the most anonymous sets one table of w holds (0 for nil).
func (w *AnonymousSetWork) sets() int {
	if w == nil {
		return 0
	}
	return w.Sets
}

// syntheticWork is syntheticAnonymousSetWork as a Size holds it: nil for
// a payload without anonymous sets.
func syntheticWork(mode string, n, m int) (*AnonymousSetWork, error) {
	w, err := syntheticAnonymousSetWork(mode, n, m)
	if err != nil || w.Sets == 0 {
		return nil, err
	}
	return &w, nil
}

// plus is w and another family's payload's work: the most sets one table
// holds, both loads' steps.
func (w *AnonymousSetWork) plus(o AnonymousSetWork) *AnonymousSetWork {
	if w == nil {
		return &o
	}
	return &AnonymousSetWork{Sets: max(w.Sets, o.Sets), AllSets: w.AllSets + o.AllSets, NameSteps: w.NameSteps + o.NameSteps, BindSteps: w.BindSteps + o.BindSteps}
}

// scaled is the work of a payload of f times the services: f times the
// sets, each walking lists f times as long (nil stays nil).
func (w *AnonymousSetWork) scaled(f float64) *AnonymousSetWork {
	if w == nil {
		return nil
	}
	return &AnonymousSetWork{Sets: int(math.Round(float64(w.Sets) * f)), AllSets: int(math.Round(float64(w.AllSets) * f)), NameSteps: w.NameSteps * f * f, BindSteps: w.BindSteps * f * f}
}
