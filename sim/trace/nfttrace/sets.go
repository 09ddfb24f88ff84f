package nfttrace

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/svclab/svclab/sim/nftables"
)

// cset is a compiled named set or map.
type cset struct {
	name     string
	fields   []field
	exact    map[key]*verdict // value nil for plain sets
	prefixes []netip.Prefix   // single-address-field sets with CIDR elements
	dynamic  bool             // filled by the datapath (affinity sets)
	timeout  time.Duration
}

// verdict is a compiled jump/goto/accept/drop/return.
type verdict struct {
	kind  string
	chain *cchain
	name  string
	note  string // path note when a map lookup yields this verdict
}

// compileSet compiles the elements of s; verdicts are resolved in chains.
func compileSet(s *nftables.Set, chains map[string]*cchain) (*cset, error) {
	fields, err := typeFields(s.KeyType)
	if err != nil {
		return nil, fmt.Errorf("set %s: %w", s.Name, err)
	}
	cs := &cset{name: s.Name, fields: fields, exact: make(map[key]*verdict, len(s.Elements)), timeout: s.Timeout}
	for _, f := range s.Flags {
		cs.dynamic = cs.dynamic || f == "dynamic"
	}
	for _, e := range s.Elements {
		if len(fields) == 1 && fields[0] == fieldDst && strings.Contains(e.Key[0], "/") {
			p, err := netip.ParsePrefix(e.Key[0])
			if err != nil {
				return nil, fmt.Errorf("set %s: element %s: %w", s.Name, e.Key[0], err)
			}
			cs.prefixes = append(cs.prefixes, p.Masked())
			continue
		}
		k, err := keyOfText(e.Key, fields)
		if err != nil {
			return nil, fmt.Errorf("set %s: %w", s.Name, err)
		}
		var v *verdict
		if s.IsMap && s.DataType == "verdict" {
			if v, err = compileVerdictValue(e, chains); err != nil {
				return nil, fmt.Errorf("set %s: element %s: %w", s.Name, e.KeyString(), err)
			}
			v.note = "vmap @" + s.Name + " → " + v.kind + " " + v.name
		}
		cs.exact[k] = v
	}
	return cs, nil
}

// compileVerdictValue resolves a map element's verdict.
func compileVerdictValue(e nftables.Element, chains map[string]*cchain) (*verdict, error) {
	v, ok := e.Verdict()
	if !ok {
		return nil, fmt.Errorf("value %q is not a verdict", strings.Join(e.Value, " "))
	}
	return resolveVerdict(v, chains)
}

// resolveVerdict links a verdict to its chain.
func resolveVerdict(v nftables.Verdict, chains map[string]*cchain) (*verdict, error) {
	out := &verdict{kind: v.Kind, name: v.Chain}
	if v.Chain != "" {
		out.chain = chains[v.Chain]
		if out.chain == nil {
			return nil, fmt.Errorf("chain %s does not exist", v.Chain)
		}
	}
	return out, nil
}

// contains reports whether the set holds k (or, for prefix sets, addr).
func (cs *cset) contains(k key, addr netip.Addr) bool {
	if _, ok := cs.exact[k]; ok {
		return true
	}
	for _, p := range cs.prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
