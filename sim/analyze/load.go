package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/hosttrace"
)

// familyHeaders are the lines svclab render writes before each family's
// rules when it renders both (no --family).
var familyHeaders = [2][]byte{[]byte("# svclab: IPv4 proxier"), []byte("# svclab: IPv6 proxier")}

// oneFamily refuses a file svclab render wrote for both families in
// iptables or IPVS mode: iptables-save, ip6tables-save and IPVS keep one
// set of tables per family, so read as one they would be one family's
// rules overwritten by the other's. (An nftables ruleset names each
// table's family and is read whole.)
func oneFamily(data []byte) error {
	v4, v6 := bytes.Index(data, familyHeaders[0]), bytes.Index(data, familyHeaders[1])
	if v4 < 0 || v6 < 0 {
		return nil
	}
	if k := Detect(data[max(v4, v6):]); k == KindNFTables || k == kindNFTJSON {
		return nil
	}
	line := func(off int) int { return bytes.Count(data[:off], []byte("\n")) + 1 }
	return badDumpf("this file holds the rules of both families (IPVS or iptables: IPv4 from line %d, IPv6 from line %d), "+
		"and each family has its own tables; render one with --family ipv4 or --family ipv6, or split the file at line %d",
		line(v4), line(v6), line(max(v4, v6)))
}

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
		return nil, BadDump(path, err)
	}
	return d, nil
}

// Load detects whether r holds iptables or nftables rules and parses it.
func Load(r io.Reader) (*Dump, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if err := oneFamily(data); err != nil {
		return nil, err
	}
	switch kind := Detect(data); kind {
	case KindIPVS:
		return loadIPVS(data)
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

// Detect says what kind of dump data is, from its first meaningful line:
// KindIPVS (ipvsadm -Sn, or svclab render's combined IPVS file),
// KindIPTables, KindNFTables (text: a listing, or an nft script starting
// with any nft command, "flush ruleset" included), "nftables-json" (nft -j
// list ruleset), or "" when it is none of them.
func Detect(data []byte) string {
	if isIPVS(data) {
		return KindIPVS
	}
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
func TraceFile(files Files, opts Options, p trace.Packet) (Result, error) {
	d, err := loadWithSets(files.Dump, files.IPSets, &opts)
	if err != nil {
		return Result{}, err
	}
	if files.IPTables != "" {
		if d.Kind != KindIPVS {
			return Result{}, BadDump(files.Dump, fmt.Errorf("--iptables goes with an IPVS dump (ipvsadm -Sn); this is %s", d.Kind))
		}
		ipt, err := LoadFile(files.IPTables)
		if err != nil {
			return Result{}, err
		}
		if ipt.Kind != KindIPTables {
			return Result{}, BadDump(files.IPTables, errors.New("not an iptables-save dump"))
		}
		d.IPT = ipt.IPT
	}
	if files.NFTRules != "" {
		if d.Kind != KindIPTables {
			return Result{}, BadDump(files.Dump, fmt.Errorf("--nft-rules goes with an iptables-nft-save dump; this is %s", d.Kind))
		}
		return traceHost(d, files, opts, p)
	}
	tr, err := NewTracer(d, opts)
	if err != nil {
		return Result{}, BadDump(files.Dump, err)
	}
	r, err := tr.Trace(p)
	r.NoService = err == nil && r.Service == "" && r.Verdict != "unknown" && noTarget(targetsOf(d), p)
	return r, err
}

// traceHost walks p through the iptables-nft dump and the host's nft
// ruleset as one.
func traceHost(d *Dump, files Files, opts Options, p trace.Packet) (Result, error) {
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
		return Result{}, BadDump(files.Dump+" and "+files.NFTRules, err)
	}
	r, err := nftablesTracer{prog}.Trace(p)
	r.Dump = KindIPTables + "+" + KindNFTables
	r.NoService = err == nil && r.Service == "" && r.Verdict != "unknown" && noTarget(iptablesTargets(d.IPT), p)
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
	rep, err := Analyze(d, src, opts)
	var de *DumpError
	if errors.As(err, &de) && de.Path == "" {
		de.Path = path
	}
	return rep, err
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
			return nil, BadDump(ipsetPath, err)
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
