package apply

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/dataplane"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
)

// IPTables applies iptables-restore payloads in one namespace with one
// backend: "legacy" or "nft", for one family: IPv4 (iptables) or IPv6
// (ip6tables).
type IPTables struct {
	Netns   string
	Backend string
	Family  model.Family
}

// NewIPTables returns an applier for a dataplane of kube-proxy's iptables
// mode (sim/dataplane), through its iptables backend.
func NewIPTables(nsName, name string) (*IPTables, error) {
	info, err := dataplane.Parse(name)
	if err != nil || info.Mode != dataplane.ModeIPTables || info.IPTablesBackend == "" {
		var want []string
		for _, d := range dataplane.ByMode(dataplane.ModeIPTables) {
			want = append(want, string(d.Name))
		}
		return nil, fmt.Errorf("dataplane %q: want %s", name, strings.Join(want, " or "))
	}
	return &IPTables{Netns: nsName, Backend: info.IPTablesBackend}, nil
}

func (p *IPTables) tool(suffix string) string {
	if p.Family == model.IPv6 {
		return "ip6tables-" + p.Backend + suffix
	}
	return "iptables-" + p.Backend + suffix
}

// ForFamily returns the applier of the same namespace and backend for
// family f.
func (p *IPTables) ForFamily(f model.Family) *IPTables {
	out := *p
	out.Family = f
	return &out
}

// tookOf is a tool run of wall-clock time wall and rusage cpu.
func tookOf(wall time.Duration, cpu netns.CPUTime) Took {
	return Took{Wall: wall, CPU: cpu.Total(), UserCPU: cpu.User}
}

// Restore loads payload in one iptables-restore call and returns how long
// the call took (wall clock and the tool's CPU time). With noflush, chains
// the payload does not declare are kept (kube-proxy always uses --noflush).
func (p *IPTables) Restore(payload []byte, noflush bool) (Took, error) {
	args := []string{p.tool("-restore"), "--counters"}
	if noflush {
		args = append(args, "--noflush")
	}
	start := time.Now()
	_, cpu, err := netns.OutputCPU(p.Netns, payload, args...)
	if err != nil {
		return Took{}, fmt.Errorf("load %d bytes of rules: %w", len(payload), err)
	}
	return tookOf(time.Since(start), cpu), nil
}

// Reset flushes the filter and nat tables and deletes their user chains
// (an iptables-restore without --noflush of two empty tables).
func (p *IPTables) Reset() error {
	_, err := p.Restore([]byte("*filter\nCOMMIT\n*nat\nCOMMIT\n"), false)
	return err
}

// Save returns iptables-save output (with counters) for the given tables.
func (p *IPTables) Save(tables ...string) ([]byte, error) {
	var out []byte
	for _, t := range tables {
		b, err := netns.Output(p.Netns, nil, p.tool("-save"), "-c", "-t", t)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

// RuleCounter is one rule's packet and byte counters with its parsed form.
type RuleCounter struct {
	Index   int // 1-based position in the chain
	Packets uint64
	Bytes   uint64
	Rule    *simipt.Rule
}

// Counters reads every rule's counters of one chain from `iptables-save -c`,
// parsed with the same parser the simulator uses.
func (p *IPTables) Counters(table, chain string) ([]RuleCounter, error) {
	snap, err := p.Snapshot(table)
	if err != nil {
		return nil, err
	}
	return snap.Chain(chain)
}

// Snapshot is one table's rules and counters, read once.
type Snapshot struct {
	table  *simipt.Table
	source string // for errors: "nat in netns X"
}

// Snapshot reads a table with one `iptables-save -c` and parses it.
func (p *IPTables) Snapshot(table string) (*Snapshot, error) {
	saved, err := p.Save(table)
	if err != nil {
		return nil, err
	}
	dump, err := simipt.Parse(bytes.NewReader(saved))
	if err != nil {
		return nil, fmt.Errorf("parse %s-save output of netns %s: %w", p.tool(""), p.Netns, err)
	}
	snap := &Snapshot{source: table + " in netns " + p.Netns}
	for _, t := range dump.Tables {
		if t.Name == table {
			snap.table = t
		}
	}
	if snap.table == nil {
		return nil, fmt.Errorf("table %s not found", snap.source)
	}
	return snap, nil
}

// Chain returns the counters of every rule of one chain.
func (s *Snapshot) Chain(chain string) ([]RuleCounter, error) {
	for _, c := range s.table.Chains {
		if c.Name == chain {
			return chainCounters(c), nil
		}
	}
	return nil, fmt.Errorf("chain %s not found in table %s", chain, s.source)
}

func chainCounters(c *simipt.Chain) []RuleCounter {
	out := make([]RuleCounter, len(c.Rules))
	for i, r := range c.Rules {
		out[i] = RuleCounter{Index: i + 1, Rule: r}
		if r.Counters != nil {
			out[i].Packets, out[i].Bytes = r.Counters.Packets, r.Counters.Bytes
		}
	}
	return out
}

// Version returns the first line of `iptables-<backend> --version`.
func (p *IPTables) Version() string {
	out, err := netns.Output(p.Netns, nil, p.tool(""), "--version")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}
