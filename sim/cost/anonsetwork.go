package cost

import (
	"math"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
)

// AnonymousSetWork is the list walking the kernel does to load an nftables
// payload's sets in one transaction, read in net/netfilter/
// nf_tables_api.c and seen in profiles of such loads (perf, 8,000
// two-endpoint Services: 48% of the samples in the binding walk, 25% in
// the set-list walks; cluster-500's mix at 9,540 Services: 46% and about
// 50%; results/plan-anonymous-sets):
//   - the set list: a table's sets (named and anonymous) are one linked
//     list, found by name by walking it (nft_set_lookup). An anonymous set
//     (kube-proxy's numgen dispatch map of each Service port with two or
//     more endpoints, a source-range set) walks all of it about five times
//     before it is bound: nf_tables_newset's duplicate check,
//     nf_tables_set_alloc_name's sscanf pass and strcmp pass, its
//     elements' and its rule's lookups by its template name. A named set
//     (kube-proxy's per-endpoint affinity-* sets) walks it once when
//     created and then up to itself at each command that names it (its
//     rules' @set, an add element);
//   - binding: when its rule binds it, __nft_set_trans_bind walks the
//     whole transaction's commit list, every entry added before it (each
//     chain, rule, set, element command of the batch), to mark the set's
//     entries bound. Named sets are not bound this way.
//
// Loading A anonymous sets costs about A²/2 set-list steps and A·T/2
// binding steps for a batch of T entries: the growth with the square that
// made nftables' full sync of a cluster's mix take 99.6 s where its rules
// predicted 8.7 (results/plan-mix-check).
type AnonymousSetWork struct {
	// Sets is the most sets, named and anonymous, one table holds: the
	// list the walks pass. AllSets is every payload's sets (a family's
	// table each), AnonymousSets every payload's anonymous sets and maps.
	Sets          int `json:"sets"`
	AllSets       int `json:"all_sets"`
	AnonymousSets int `json:"anonymous_sets"`
	// NameSteps is the sets the set-list walks pass, counted as an
	// anonymous set's walks pass them (lab/nftsetwalk times such a step):
	// a named set's single walk is a fifth of one (namedSetWalkShare).
	// NameStepLengths sums each walk's steps times its length, so that
	// NameStepLengths/NameSteps is the list a step was taken on, on
	// average (the lookups of kube-proxy's first few sets, one per element
	// command, are many and short, and cost next to nothing).
	// NameStepEntries sums each walk's steps times the commit-list entries
	// before it: NameStepEntries/NameSteps is how long the transaction was,
	// on average, when a step was taken (the binding walks that went
	// before it emptied the caches it runs in).
	NameSteps       float64 `json:"name_steps"`
	NameStepLengths float64 `json:"name_step_lengths"`
	NameStepEntries float64 `json:"name_step_entries"`
	// BindSteps is the commit-list entries passed by the binding walks.
	BindSteps float64 `json:"bind_steps"`
}

// anonymousSetEntries is the commit-list entries an anonymous set adds
// besides its rule's: the new set and its elements (added in one message,
// which the kernel keeps as one entry).
const anonymousSetEntries = 2

// namedSetWalkShare is a named set's walk of the set list (its creation's
// duplicate check, or a lookup by its name) as a share of an anonymous
// set's about five (AnonymousSetWork).
const namedSetWalkShare = 1.0 / 5

// negligibleSets is the sets a table may hold without anonymous ones and
// have its walks left out: the handful of fixed sets and maps kube-proxy
// writes once (svclab's layout has 6) cost microseconds.
const negligibleSets = 16

// payloadAnonymousSetWork counts the set-list and binding steps of loading
// an nftables payload as one transaction (nft -f) into a namespace
// without its tables (a cold start, as the lab and lab/nftsetwalk load):
// each command a commit-list entry (a flush of a chain just added none),
// each anonymous set in a rule (anonymousSetsIn) two more; zero for the
// other modes.
func payloadAnonymousSetWork(mode dataplane.Mode, payload []byte) AnonymousSetWork {
	var c setListCounter
	if mode != dataplane.ModeNFTables {
		return c.w
	}
	c.tables = map[string]*setList{}
	eachLine(payload, c.line)
	return c.w
}

// setList is one table's sets in the order the kernel lists them.
type setList struct {
	position map[string]int
	sets     int
}

// setListCounter counts a payload's walks line by line.
type setListCounter struct {
	w       AnonymousSetWork
	tables  map[string]*setList
	entries int
}

// line counts one line of an nft -f script.
func (c *setListCounter) line(line string) {
	fields := strings.SplitN(line, " ", 6) // VERB OBJECT FAMILY TABLE NAME rest
	if len(fields) < 4 || !nftCommand(fields[0]) {
		return
	}
	table := c.table(fields[2] + " " + fields[3])
	if len(fields) >= 5 {
		switch {
		case fields[0] == "add" && (fields[1] == "set" || fields[1] == "map"):
			c.namedSet(table, fields[4])
		case fields[1] == "element":
			c.named(table, fields[4])
		case fields[1] == "rule":
			c.rule(table, strings.Join(fields[4:], " "))
		}
	}
	if fields[0] != "flush" {
		c.entries++
	}
}

// table is the set list of the table named "FAMILY NAME".
func (c *setListCounter) table(name string) *setList {
	t := c.tables[name]
	if t == nil {
		t = &setList{position: map[string]int{}}
		c.tables[name] = t
	}
	return t
}

// namedSet counts a named set's creation: a walk of the whole list (its
// duplicate check), then the set at its end; a set already there is only
// found.
func (c *setListCounter) namedSet(t *setList, name string) {
	if _, ok := t.position[name]; ok {
		c.named(t, name)
		return
	}
	c.walk(float64(t.sets), namedSetWalkShare)
	t.position[name] = t.sets
	c.grow(t)
}

// named counts a lookup of a named set: a walk up to it (a name the
// payload did not create is not walked for: it is not in this load).
func (c *setListCounter) named(t *setList, name string) {
	if i, ok := t.position[name]; ok {
		c.walk(float64(i+1), namedSetWalkShare)
	}
}

// rule counts a rule's named sets' lookups and its anonymous sets: each
// walks the whole list and is bound by a walk of the commit list so far.
func (c *setListCounter) rule(t *setList, rest string) {
	for _, name := range namedSetsIn(rest) {
		c.named(t, name)
	}
	for range anonymousSetsIn(rest) {
		c.walk(float64(t.sets), 1)
		c.w.BindSteps += float64(c.entries)
		c.w.AnonymousSets++
		c.entries += anonymousSetEntries
		c.grow(t)
	}
}

// walk counts a walk of steps sets, share of an anonymous set's walks.
func (c *setListCounter) walk(steps, share float64) {
	c.w.NameSteps += steps * share
	c.w.NameStepLengths += steps * steps * share
	c.w.NameStepEntries += steps * share * float64(c.entries)
}

// grow adds a set to t.
func (c *setListCounter) grow(t *setList) {
	t.sets++
	c.w.AllSets++
	c.w.Sets = max(c.w.Sets, t.sets)
}

// namedSetsIn is the sets a rule's text names (@name).
func namedSetsIn(rule string) []string {
	var out []string
	for _, f := range strings.Fields(rule) {
		if name, ok := strings.CutPrefix(f, "@"); ok && name != "" {
			out = append(out, name)
		}
	}
	return out
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
// than the first's: the steps of n services are a quadratic in n, and
// their steps times lengths a cubic, each solved exactly from renders of
// one to four services (forward differences).
func syntheticAnonymousSetWork(mode string, n, m int) (AnonymousSetWork, error) {
	md, err := dataplane.ParseMode(mode)
	if err != nil || md != dataplane.ModeNFTables || n < 1 {
		return AnonymousSetWork{}, err
	}
	few, err := firstServices(mode, m)
	if err != nil {
		return AnonymousSetWork{}, err
	}
	var w [4]AnonymousSetWork
	for i := range w {
		w[i] = payloadAnonymousSetWork(md, few[i])
	}
	grow := func(of func(AnonymousSetWork) float64) float64 {
		f1, f2, f3, f4 := of(w[0]), of(w[1]), of(w[2]), of(w[3])
		d1, d2, d3 := f2-f1, f3-2*f2+f1, f4-3*f3+3*f2-f1
		x := float64(n - 1)
		return max(f1+d1*x+d2*x*(x-1)/2+d3*x*(x-1)*(x-2)/6, 0)
	}
	linear := func(of func(AnonymousSetWork) int) int { return of(w[0]) + (of(w[1])-of(w[0]))*(n-1) }
	return AnonymousSetWork{
		Sets:            linear(func(a AnonymousSetWork) int { return a.Sets }),
		AllSets:         linear(func(a AnonymousSetWork) int { return a.AllSets }),
		AnonymousSets:   linear(func(a AnonymousSetWork) int { return a.AnonymousSets }),
		NameSteps:       grow(func(a AnonymousSetWork) float64 { return a.NameSteps }),
		NameStepLengths: grow(func(a AnonymousSetWork) float64 { return a.NameStepLengths }),
		NameStepEntries: grow(func(a AnonymousSetWork) float64 { return a.NameStepEntries }),
		BindSteps:       grow(func(a AnonymousSetWork) float64 { return a.BindSteps }),
	}, nil
}

// NFTablesAnonymousSetWork is the naming and binding steps of loading an
// nftables payload (nft -f input) as one transaction: what lab/nftsetwalk
// divides its loads' times by.
func NFTablesAnonymousSetWork(payload []byte) AnonymousSetWork {
	return payloadAnonymousSetWork(dataplane.ModeNFTables, payload)
}

// sets is the most sets one table of w holds (0 for nil).
func (w *AnonymousSetWork) sets() int {
	if w == nil {
		return 0
	}
	return w.Sets
}

// walked says whether w's walks are worth pricing: the payload has an
// anonymous set, or more sets in a table than kube-proxy's fixed ones.
func (w AnonymousSetWork) walked() bool {
	return w.AnonymousSets > 0 || w.Sets > negligibleSets
}

// syntheticWork is syntheticAnonymousSetWork as a Size holds it: nil for
// a payload whose walks are not worth pricing.
func syntheticWork(mode string, n, m int) (*AnonymousSetWork, error) {
	w, err := syntheticAnonymousSetWork(mode, n, m)
	if err != nil || !w.walked() {
		return nil, err
	}
	return &w, nil
}

// plus is w and another family's payload's work: the most sets one table
// holds, both loads' sets and steps.
func (w *AnonymousSetWork) plus(o AnonymousSetWork) *AnonymousSetWork {
	if w == nil {
		return &o
	}
	return &AnonymousSetWork{Sets: max(w.Sets, o.Sets), AllSets: w.AllSets + o.AllSets, AnonymousSets: w.AnonymousSets + o.AnonymousSets,
		NameSteps: w.NameSteps + o.NameSteps, NameStepLengths: w.NameStepLengths + o.NameStepLengths, NameStepEntries: w.NameStepEntries + o.NameStepEntries, BindSteps: w.BindSteps + o.BindSteps}
}

// scaled is the work of a payload of f times the services: f times the
// sets and walks, each walking lists f times as long (nil stays nil).
func (w *AnonymousSetWork) scaled(f float64) *AnonymousSetWork {
	if w == nil {
		return nil
	}
	times := func(n int) int { return int(math.Round(float64(n) * f)) }
	return &AnonymousSetWork{Sets: times(w.Sets), AllSets: times(w.AllSets), AnonymousSets: times(w.AnonymousSets),
		NameSteps: w.NameSteps * f * f, NameStepLengths: w.NameStepLengths * f * f * f, NameStepEntries: w.NameStepEntries * f * f * f, BindSteps: w.BindSteps * f * f}
}

// nameLength is the list a set-list step of w is taken on, on average.
func (w *AnonymousSetWork) nameLength() float64 {
	return w.NameStepLengths / max(w.NameSteps, 1)
}

// nameEntries is the commit-list entries of the transaction so far when a
// set-list step of w is taken, on average.
func (w *AnonymousSetWork) nameEntries() float64 {
	return w.NameStepEntries / max(w.NameSteps, 1)
}

// bindLength is the commit-list entries a binding walk of w passes on
// average (over every family's anonymous sets: each family's load is a
// transaction of its own).
func (w *AnonymousSetWork) bindLength() float64 {
	return w.BindSteps / float64(max(w.AnonymousSets, 1))
}
