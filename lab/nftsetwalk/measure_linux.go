package nftsetwalk

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/results"
	"github.com/svclab/svclab/sim/route"
	"github.com/svclab/svclab/sim/stats"
)

// Options say what Measure times and where.
type Options struct {
	// Naming are the table sizes the naming walk is timed at, in
	// two-endpoint Services (a set each); Binding those the binding walk
	// is, in one-endpoint Services (about five commit-list entries each).
	Naming, Binding []int
	// Rounds is how many times each size is timed.
	Rounds int
	// AddedSets is how many anonymous maps a naming transaction adds (and
	// an eighth as many, to tell the naming steps from the cost paid once a
	// transaction).
	AddedSets int
	// BindingSteps is about how many binding steps the maps at the end of
	// a binding transaction make: as many maps as take that many at its
	// list's length (at least AddedSets/16), so that the walk stands out
	// of the load's own time at every size (2·10⁷: 0.3 s at 14 ns a step,
	// against a load of 5,000 Services' 0.5 s that swings by 0.1).
	BindingSteps float64
	// Prefix names the namespaces Measure makes (Prefix-nftsets and
	// Prefix-nftsets-b): a run's, so that svclab cleanup removes them
	// after a crash.
	Prefix string
}

// DefaultOptions take about 50 s on this project's reference machine. The
// naming walk's step grows slowly with the table until its sets outgrow
// the caches (49, 93 and 99 ns at 1,000, 4,000 and 8,000 sets, and by hand
// about 160-190 at 18,000, 2026-12-06 22:30 UTC; a table's 8,000 sets
// spread over 40,000 Services' objects cost 15% more a step than alone); the binding walk's grows once the commit
// list outgrows the caches, so it is timed up to a list of about 200,000
// entries (the full sync of 40,000 one-port Services), past a cluster's
// mix of 9,540 Services'.
var DefaultOptions = Options{Naming: []int{1000, 4000, 8000}, Binding: []int{5000, 20000, 40000}, Rounds: 2, AddedSets: 256, BindingSteps: 2e7}

// Measure times the naming walk's step and a transaction's cost per set
// (AnonymousSetListing) at each of opts.Naming's sizes, and the binding
// walk's step at each of opts.Binding's.
func Measure(ctx context.Context, opts Options) ([]results.AnonymousSetStep, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	spaces := [2]string{opts.Prefix + "-nftsets", opts.Prefix + "-nftsets-b"}
	var made []string
	var err error
	for _, name := range spaces {
		if err = netns.Create(name); err != nil {
			break
		}
		made = append(made, name)
	}
	var out []results.AnonymousSetStep
	if err == nil {
		out, err = measureAll(ctx, spaces, opts)
	}
	for _, name := range made {
		err = errors.Join(err, netns.Delete(name))
	}
	return out, err
}

// measureAll times every size in the namespaces: naming first, whose
// price the binding steps are net of.
func measureAll(ctx context.Context, spaces [2]string, opts Options) ([]results.AnonymousSetStep, error) {
	var out []results.AnonymousSetStep
	for _, n := range opts.Naming {
		steps, err := timeNaming(ctx, spaces, n, opts)
		if err != nil {
			return nil, fmt.Errorf("anonymous set naming walk at %d services: %w", n, err)
		}
		out = append(out, steps[:]...)
	}
	if _, err := netns.Output(spaces[1], nil, "nft", "flush", "ruleset"); err != nil {
		return nil, fmt.Errorf("empty the ruleset of %s: %w", spaces[1], err)
	}
	naming := out[0].NsPerStep
	for _, n := range opts.Binding {
		step, err := timeBinding(ctx, spaces[0], n, naming, opts)
		if err != nil {
			return nil, fmt.Errorf("anonymous set binding walk at %d services: %w", n, err)
		}
		out = append(out, step)
	}
	return out, nil
}

// check refuses options Measure cannot run.
func (o Options) check() error {
	switch {
	case o.Prefix == "":
		return errors.New("anonymous set walks: no namespace prefix (a run's)")
	case o.Rounds < 1 || o.AddedSets < 16 || o.BindingSteps < 1 || len(o.Naming) == 0 || len(o.Binding) == 0:
		return fmt.Errorf("anonymous set walks: %d rounds, %d added sets, %.0f binding steps, %d naming and %d binding sizes: want at least 1 round, 16 sets, a step, 1 size of each",
			o.Rounds, o.AddedSets, o.BindingSteps, len(o.Naming), len(o.Binding))
	}
	for _, n := range slices.Concat(o.Naming, o.Binding) {
		if n < 1 {
			return fmt.Errorf("anonymous set walks at %d services: want at least 1", n)
		}
	}
	return nil
}

// timeNaming times the naming walk's step at a table of n sets, and what
// else a transaction on that table pays for each of its sets: n
// two-endpoint Services' table (a map each) is built in one namespace and
// n one-endpoint Services' (none) in the other, each in transactions of
// buildLines lines so that their own binding walks stay short (a table of
// 8,000 maps in one transaction took 6.4 s, most of it binding); then each
// round adds AddedSets/8 maps and then AddedSets to each table. The
// difference between the tables grows with the maps added by the naming
// steps they make, and the rest of it is paid once a transaction (nft's
// cache of the table's sets: about 10 µs a set here, which kube-proxy's
// incremental syncs pay).
func timeNaming(ctx context.Context, spaces [2]string, n int, opts Options) ([2]results.AnonymousSetStep, error) {
	var none [2]results.AnonymousSetStep
	tables, err := servicesPayloads(n, 2, 1)
	if err != nil {
		return none, err
	}
	withMaps := cost.NFTablesAnonymousSetWork(tables[0])
	sets := withMaps.AnonymousSets - cost.NFTablesAnonymousSetWork(tables[1]).AnonymousSets
	if sets < 1 {
		return none, fmt.Errorf("the two-endpoint table has no more anonymous sets than the one-endpoint one")
	}
	for i, table := range tables {
		if err := loadInChunks(spaces[i], table); err != nil {
			return none, err
		}
	}
	few, many := opts.AddedSets/8, opts.AddedSets
	var naming, listing []float64
	for attempt := 0; len(naming) < opts.Rounds && attempt < maxAttempts*opts.Rounds; attempt++ {
		var added [2][2]time.Duration // [table][few, many]
		for i, ns := range spaces {
			if err := ctx.Err(); err != nil {
				return none, err
			}
			if added[i], err = timeAdditions(ns, few, many); err != nil {
				return none, err
			}
		}
		dFew, dMany := float64(added[0][0]-added[1][0]), float64(added[0][1]-added[1][1])
		name := (dMany - dFew) / float64((many-few)*sets)
		list := (dFew - name*float64(few*sets)) / float64(sets)
		if name > 0 && list > 0 {
			naming, listing = append(naming, name), append(listing, list)
		}
	}
	var out [2]results.AnonymousSetStep
	if out[0], err = stepOf(results.AnonymousSetNaming, n, withMaps.Sets, naming, opts); err != nil {
		return none, err
	}
	out[1], err = stepOf(results.AnonymousSetListing, n, withMaps.Sets, listing, opts)
	return out, err
}

// buildLines is how many lines of a table's script timeNaming loads a
// transaction.
const buildLines = 4000

// loadInChunks empties the namespace's ruleset and loads payload in
// transactions of buildLines lines, in order (kube-proxy's scripts write
// one command a line, each naming only what lines before it made).
func loadInChunks(ns string, payload []byte) error {
	fresh := true
	for chunk := range chunksOf(payload, buildLines) {
		if _, err := loadTimed(ns, chunk, fresh); err != nil {
			return err
		}
		fresh = false
	}
	return nil
}

// chunksOf yields payload in pieces of at most lines whole lines.
func chunksOf(payload []byte, lines int) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for len(payload) > 0 {
			end, n := 0, 0
			for end < len(payload) && n < lines {
				i := bytes.IndexByte(payload[end:], '\n')
				if i < 0 {
					end = len(payload)
					break
				}
				end += i + 1
				n++
			}
			if !yield(payload[:end]) {
				return
			}
			payload = payload[end:]
		}
	}
}

// timeAdditions times adding few maps to the namespace's table, then, once
// they are gone, many, and takes those out again.
func timeAdditions(ns string, few, many int) ([2]time.Duration, error) {
	var out [2]time.Duration
	var err error
	for i, sets := range []int{few, many} {
		if out[i], err = loadTimed(ns, additionPayload(sets), false); err != nil {
			return out, err
		}
		if _, err := loadTimed(ns, []byte(removalPayload), false); err != nil {
			return out, err
		}
	}
	return out, nil
}

// timeBinding times the binding walk's step at the commit list of n
// one-endpoint Services' full load: each round loads their table alone
// and with the maps at its end.
func timeBinding(ctx context.Context, ns string, n int, naming float64, opts Options) (results.AnonymousSetStep, error) {
	table, err := servicesPayload(n, 1)
	if err != nil {
		return results.AnonymousSetStep{}, err
	}
	before := cost.NFTablesAnonymousSetWork(table)
	entries := cost.NFTablesAnonymousSetWork(append(slices.Clip(table), additionPayload(1)...)).BindSteps - before.BindSteps
	sets := max(int(math.Ceil(opts.BindingSteps/max(entries, 1))), opts.AddedSets/16)
	withMaps := append(slices.Clip(table), additionPayload(sets)...)
	after := cost.NFTablesAnonymousSetWork(withMaps)
	bind, name := after.BindSteps-before.BindSteps, after.NameSteps-before.NameSteps
	var prices []float64
	for attempt := 0; len(prices) < opts.Rounds && attempt < maxAttempts*opts.Rounds; attempt++ {
		if err := ctx.Err(); err != nil {
			return results.AnonymousSetStep{}, err
		}
		alone, err := loadTimed(ns, table, true)
		if err != nil {
			return results.AnonymousSetStep{}, err
		}
		both, err := loadTimed(ns, withMaps, true)
		if err != nil {
			return results.AnonymousSetStep{}, err
		}
		prices = appendPositive(prices, (float64(both-alone)-naming*name)/bind)
	}
	step, err := stepOf(results.AnonymousSetBinding, n, int(bind/float64(sets)), prices, opts)
	step.AddedSets = sets
	return step, err
}

// maxAttempts is how many times over its rounds a size may be timed: a
// round whose difference is not positive (the machine swung more than the
// walk took) is timed again, which leans the kept rounds a little dear.
const maxAttempts = 3

// appendPositive appends price to prices when it is positive.
func appendPositive(prices []float64, price float64) []float64 {
	if price <= 0 {
		return prices
	}
	return append(prices, price)
}

// stepOf is the step of prices' rounds (their median, the mean of the
// middle two for an even count, so that 2 rounds are not priced at the
// dearer one), refused when fewer than the options' rounds were positive.
func stepOf(walk string, services, length int, prices []float64, opts Options) (results.AnonymousSetStep, error) {
	if len(prices) < opts.Rounds {
		return results.AnonymousSetStep{}, fmt.Errorf("%d of %d attempts timed the %s step above zero, %d wanted: the machine swung more than the walk takes",
			len(prices), maxAttempts*opts.Rounds, walk, opts.Rounds)
	}
	s := slices.Sorted(slices.Values(prices))
	return results.AnonymousSetStep{Walk: walk, Services: services, Length: length, NsPerStep: stats.Median(s), MinNsPerStep: s[0], MaxNsPerStep: s[len(s)-1],
		Rounds: opts.Rounds, AddedSets: opts.AddedSets}, nil
}

// loadTimed loads payload into the namespace, emptied first when fresh,
// and returns nft's CPU time.
func loadTimed(ns string, payload []byte, fresh bool) (time.Duration, error) {
	if fresh {
		if _, err := netns.Output(ns, nil, "nft", "flush", "ruleset"); err != nil {
			return 0, fmt.Errorf("empty the ruleset: %w", err)
		}
	}
	_, cpu, err := netns.OutputCPU(ns, payload, "nft", "-f", "-")
	if err != nil {
		return 0, fmt.Errorf("load %d lines: %w", bytes.Count(payload, []byte("\n")), err)
	}
	return cpu.Total(), nil
}

// servicesPayloads renders the ruleset of n synthetic Services for each
// endpoint count.
func servicesPayloads(n int, endpoints ...int) ([][]byte, error) {
	var out [][]byte
	for _, m := range endpoints {
		p, err := servicesPayload(n, m)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// servicesPayload is svclab's nftables ruleset of n synthetic Services
// with m endpoints each, IPv4.
func servicesPayload(n, m int) ([]byte, error) {
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: n, EndpointsPerService: m, Seed: 1})
	if err != nil {
		return nil, fmt.Errorf("%d synthetic services × %d endpoints: %w", n, m, err)
	}
	var b bytes.Buffer
	mdl := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
	if _, err := route.Render(&b, mdl, route.Config{Mode: dataplane.ModeNFTables}); err != nil {
		return nil, fmt.Errorf("render the nftables ruleset of %d synthetic services × %d endpoints: %w", n, m, err)
	}
	return b.Bytes(), nil
}

// additionTable and additionChain are where an addition's maps go: the
// rendered ruleset's table, a chain no hook jumps to; removalPayload takes
// them out again (their maps with their rules).
const (
	additionTable  = "ip kube-proxy"
	additionChain  = "svclab-anonymous-sets"
	removalPayload = "flush chain " + additionTable + " " + additionChain + "\ndelete chain " + additionTable + " " + additionChain + "\n"
)

// additionPayload adds sets anonymous numgen maps of two addresses each,
// as kube-proxy's two-endpoint dispatch writes them: in a transaction of
// their own, or at the end of a table's load.
func additionPayload(sets int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "add chain %s %s\n", additionTable, additionChain)
	for i := range sets {
		hi, lo := i/250, i%250+1
		fmt.Fprintf(&b, "add rule %s %s meta l4proto tcp dnat ip addr . port to numgen random mod 2 map { 0 : 10.250.%d.%d . 8080 , 1 : 10.251.%d.%d . 8080 }\n",
			additionTable, additionChain, hi, lo, hi, lo)
	}
	return []byte(b.String())
}
