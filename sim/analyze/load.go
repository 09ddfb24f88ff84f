package analyze

import (
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/trace/hosttrace"
)

// Kinds of dump.
const (
	KindIPTables = string(dataplane.ModeIPTables)
	KindNFTables = string(dataplane.ModeNFTables)
)

// Dump is a parsed rule dump of either kind.
type Dump struct {
	Kind string
	IPT  *iptables.Dump // iptables, or the iptables rules next to IPVS
	NFT  *nftables.Ruleset
	IPVS *ipvs.Table
	// IPSets come with a combined IPVS file (svclab render --mode ipvs).
	IPSets ipvs.IPSets
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
	if isIPVS(data) {
		return loadIPVS(data)
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
				"save them with `iptables-nft-save -c` and trace that, with this ruleset as --nft-rules to walk both as one)", t)
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

// Files are what the user gives: the dump, and for an IPVS dump the
// node's ipsets and iptables-save ("" when not given). NFTRules is the
// host's nft list ruleset next to an iptables-nft dump: both are walked
// as one (sim/trace/hosttrace).
type Files struct {
	Dump, IPSets, IPTables, NFTRules string
}

// TraceFile loads the files and traces one packet.
func TraceFile(files Files, opts Options, p Packet) (Result, error) {
	d, err := loadWithSets(files.Dump, files.IPSets, &opts)
	if err != nil {
		return Result{}, err
	}
	if files.IPTables != "" {
		if d.Kind != KindIPVS {
			return Result{}, fmt.Errorf("--iptables goes with an IPVS dump (ipvsadm -Sn); %s is %s", files.Dump, d.Kind)
		}
		ipt, err := LoadFile(files.IPTables)
		if err != nil {
			return Result{}, err
		}
		if ipt.Kind != KindIPTables {
			return Result{}, fmt.Errorf("%s: not an iptables-save dump", files.IPTables)
		}
		d.IPT = ipt.IPT
	}
	if files.NFTRules != "" {
		if d.Kind != KindIPTables {
			return Result{}, fmt.Errorf("--nft-rules goes with an iptables-nft-save dump; %s is %s", files.Dump, d.Kind)
		}
		return traceHost(d, files, opts, p)
	}
	tr, err := NewTracer(d, opts)
	if err != nil {
		return Result{}, err
	}
	return tr.Trace(p)
}

// traceHost walks p through the iptables-nft dump and the host's nft
// ruleset as one.
func traceHost(d *Dump, files Files, opts Options, p Packet) (Result, error) {
	text, err := os.ReadFile(files.NFTRules)
	if err != nil {
		return Result{}, fmt.Errorf("read --nft-rules: %w", err)
	}
	family := "ip"
	if p.Src.Is6() && !p.Src.Is4In6() {
		family = "ip6"
	}
	prog, skipped, err := hosttrace.Compile(d.IPT, family, text, hosttrace.Options{LocalAddrs: opts.Local, IPSets: opts.IPSets, SkipPath: opts.SkipPaths})
	if err != nil {
		return Result{}, fmt.Errorf("%s and %s: %w", files.Dump, files.NFTRules, err)
	}
	r, err := (&Tracer{kind: KindNFTables, nft: prog}).traceNFTables(p)
	r.Dump = KindIPTables + "+" + KindNFTables
	if len(skipped) > 0 {
		r.Flags = append(r.Flags, fmt.Sprintf("%s: tables %s are iptables-nft's; walked from %s instead", files.NFTRules, strings.Join(skipped, ", "), files.Dump))
	}
	return r, err
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
