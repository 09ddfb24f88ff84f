package analyze

import (
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/nftables"
)

// Kinds of dump.
const (
	KindIPTables = "iptables"
	KindNFTables = "nftables"
)

// Dump is a parsed rule dump of either kind.
type Dump struct {
	Kind string
	IPT  *iptables.Dump
	NFT  *nftables.Ruleset
}

// LoadFile reads and parses a dump file.
func LoadFile(path string) (*Dump, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read dump: %w", err)
	}
	d, err := Load(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Load detects whether r holds iptables or nftables rules and parses it.
func Load(r io.Reader) (*Dump, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	switch kind := detect(data); kind {
	case KindIPTables:
		d, err := iptables.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return &Dump{Kind: kind, IPT: d}, nil
	case kindNFTJSON:
		rs, err := nftables.ParseJSON(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return &Dump{Kind: KindNFTables, NFT: rs}, nil
	case KindNFTables:
		if t := iptablesNFTTable(data); t != "" {
			return nil, fmt.Errorf("this is iptables-nft; use iptables-nft-save (table %s holds iptables-nft's chains: "+
				"save them with `iptables-nft-save -c` and trace that, and the other tables of the ruleset separately)", t)
		}
		rs, err := nftables.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return &Dump{Kind: kind, NFT: rs}, nil
	}
	return nil, fmt.Errorf("not an iptables or nftables dump: expected iptables-save output (\"*nat\" ... \"COMMIT\") or an nftables ruleset (\"table ip kube-proxy {\" or \"add table ...\")")
}

// kindNFTJSON is `nft -j list ruleset` output, loaded as KindNFTables.
const kindNFTJSON = "nftables-json"

// detect looks at the first meaningful line.
func detect(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0 || line[0] == '#':
			continue
		case line[0] == '{' && bytes.Contains(data, []byte(`"nftables"`)):
			return kindNFTJSON
		case line[0] == '*' || line[0] == ':' || bytes.HasPrefix(line, []byte("-A ")) || line[0] == '[':
			return KindIPTables
		case bytes.HasPrefix(line, []byte("table ")) || bytes.HasPrefix(line, []byte("add ")) ||
			bytes.HasPrefix(line, []byte("flush ")) || bytes.HasPrefix(line, []byte("delete ")):
			return KindNFTables
		}
		return ""
	}
	return ""
}

// TraceFile loads the dump at path (and the `ipset save` output at
// ipsetPath, if not "") and traces one packet.
func TraceFile(path, ipsetPath string, opts Options, p Packet) (Result, error) {
	d, err := loadWithSets(path, ipsetPath, &opts)
	if err != nil {
		return Result{}, err
	}
	tr, err := NewTracer(d, opts)
	if err != nil {
		return Result{}, err
	}
	return tr.Trace(p)
}

// AnalyzeFile is Analyze over the dump at path, with the ipsets at
// ipsetPath if not "".
func AnalyzeFile(path, ipsetPath string, src netip.Addr, opts Options) (*Report, error) {
	d, err := loadWithSets(path, ipsetPath, &opts)
	if err != nil {
		return nil, err
	}
	return Analyze(d, src, opts)
}

func loadWithSets(path, ipsetPath string, opts *Options) (*Dump, error) {
	d, err := LoadFile(path)
	if err != nil {
		return nil, err
	}
	if ipsetPath != "" {
		f, err := os.Open(ipsetPath)
		if err != nil {
			return nil, fmt.Errorf("read ipsets: %w", err)
		}
		defer f.Close()
		if opts.IPSets, err = ipvs.ParseIPSetSave(f); err != nil {
			return nil, fmt.Errorf("%s: %w", ipsetPath, err)
		}
	}
	return d, nil
}

// iptablesNFTTable returns the first table of an `nft list ruleset` that
// iptables-nft made ("ip nat" holding chain PREROUTING ...), or "".
func iptablesNFTTable(data []byte) string {
	table := ""
	for _, line := range bytes.Split(data, []byte("\n")) {
		f := strings.Fields(string(line))
		switch {
		case len(f) >= 3 && f[0] == "table" && (f[1] == "ip" || f[1] == "ip6"):
			table = ""
			if iptables.KnownTable(f[2]) {
				table = f[1] + " " + f[2]
			}
		case len(f) >= 2 && f[0] == "table":
			table = ""
		case len(f) >= 2 && f[0] == "chain" && table != "" && iptables.IsBuiltinChain(table[strings.IndexByte(table, ' ')+1:], f[1]):
			return table
		}
	}
	return ""
}
