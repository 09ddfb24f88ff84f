package ipvs

import (
	"bufio"
	"fmt"
	"strings"
)

// builtinTargets are the targets the IPVS-mode payload may jump to besides
// its own chains.
var builtinTargets = map[string]bool{
	"ACCEPT": true, "DROP": true, "RETURN": true, "REJECT": true, "MASQUERADE": true, "MARK": true,
}

// iptablesDump is what checkIPTables learnt from a payload.
type iptablesDump struct {
	chains map[string][]string // "nat KUBE-SERVICES" -> rules
	rules  int
}

// checkIPTables parses an iptables-restore payload like kube-proxy's
// ParseIPTablesDump (a table, chain lines, rules, COMMIT) and validates it:
// rules only in declared chains, jumps only to declared chains or known
// targets, --match-set only on sets the ipset payload creates and with as
// many directions as the set has dimensions.
func checkIPTables(payload string, sets *ipsetState) (*iptablesDump, error) {
	d := &iptablesDump{chains: map[string][]string{}}
	table := ""
	sc := bufio.NewScanner(strings.NewReader(payload))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		var err error
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "*"):
			if table != "" {
				err = fmt.Errorf("table %s not committed", table)
			}
			table = line[1:]
		case line == "COMMIT":
			if table == "" {
				err = fmt.Errorf("COMMIT outside a table")
			}
			table = ""
		case strings.HasPrefix(line, ":"):
			name, _, _ := strings.Cut(line[1:], " ")
			d.chains[table+" "+name] = nil
		case strings.HasPrefix(line, "-A "):
			err = d.addRule(table, line, sets)
		default:
			err = fmt.Errorf("unexpected line")
		}
		if err != nil {
			return nil, fmt.Errorf("iptables-restore line %d %q: %w", n, line, err)
		}
	}
	if table != "" {
		return nil, fmt.Errorf("table %s not committed", table)
	}
	return d, sc.Err()
}

func (d *iptablesDump) addRule(table, line string, sets *ipsetState) error {
	words, err := splitWords(line)
	if err != nil {
		return err
	}
	chain := table + " " + words[1]
	if _, ok := d.chains[chain]; !ok {
		return fmt.Errorf("rule for undeclared chain %s", chain)
	}
	for i := 2; i < len(words); i++ {
		switch words[i] {
		case "-j":
			if i+1 >= len(words) {
				return fmt.Errorf("-j without target")
			}
			target := words[i+1]
			if _, ok := d.chains[table+" "+target]; !ok && !builtinTargets[target] {
				return fmt.Errorf("jump to non-existent chain %s", target)
			}
		case "--match-set":
			if i+2 >= len(words) {
				return fmt.Errorf("--match-set without set and directions")
			}
			if err := checkMatchSet(words[i+1], words[i+2], sets); err != nil {
				return err
			}
		}
	}
	d.chains[chain] = append(d.chains[chain], line)
	d.rules++
	return nil
}

func checkMatchSet(name, dirs string, sets *ipsetState) error {
	s := sets.sets[name]
	if s == nil {
		return fmt.Errorf("match-set %s: set not created by the ipset payload", name)
	}
	if n := len(strings.Split(dirs, ",")); n != dims[s.typ] {
		return fmt.Errorf("match-set %s %s: %d directions for a %s set", name, dirs, n, s.typ)
	}
	return nil
}

// splitWords splits a rule into words, a double-quoted string being one.
func splitWords(line string) ([]string, error) {
	var words []string
	for rest := strings.TrimSpace(line); rest != ""; rest = strings.TrimSpace(rest) {
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("unterminated quote")
			}
			words = append(words, rest[1:end+1])
			rest = rest[end+2:]
			continue
		}
		w, r, _ := strings.Cut(rest, " ")
		words, rest = append(words, w), r
	}
	return words, nil
}
