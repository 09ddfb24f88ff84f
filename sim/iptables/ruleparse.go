package iptables

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseRule parses one rule line, "-A CHAIN ...", optionally preceded by
// counters "[packets:bytes]". Errors carry no line number; Parse adds it.
func ParseRule(line string) (*Rule, error) {
	words, err := SplitWords(line)
	if err != nil {
		return nil, err
	}
	return parseRuleWords(words)
}

// parseRuleWords parses the words of a rule line, including "-A CHAIN".
func parseRuleWords(words []string) (*Rule, error) {
	r := &Rule{}
	if len(words) > 0 && strings.HasPrefix(words[0], "[") {
		c, err := parseCounters(words[0])
		if err != nil {
			return nil, err
		}
		r.Counters = &c
		words = words[1:]
	}
	if len(words) < 2 || (words[0] != "-A" && words[0] != "--append") {
		return nil, errors.New(`rule does not start with "-A CHAIN"`)
	}
	r.Chain = words[1]
	if err := checkChainName(r.Chain); err != nil {
		return nil, err
	}
	r.Words = words[2:]
	p := ruleParser{r: r, words: r.Words}
	if err := p.parse(); err != nil {
		return nil, fmt.Errorf("rule in chain %s: %w", r.Chain, err)
	}
	if err := checkRule(r); err != nil {
		return nil, fmt.Errorf("rule in chain %s: %w", r.Chain, err)
	}
	return r, nil
}

// ruleParser walks the words of one rule.
type ruleParser struct {
	r       *Rule
	words   []string
	i       int
	negated bool
}

func (p *ruleParser) parse() error {
	for p.i < len(p.words) {
		w := p.words[p.i]
		p.i++
		if w == "!" {
			if p.negated {
				return errors.New(`"!" given twice`)
			}
			p.negated = true
			continue
		}
		neg := p.negated
		p.negated = false
		if err := p.option(w, neg); err != nil {
			return err
		}
	}
	if p.negated {
		return errors.New(`"!" at the end of the rule`)
	}
	return nil
}

// args consumes the n arguments of opt.
func (p *ruleParser) args(opt string, n int) ([]string, error) {
	if p.i+n > len(p.words) {
		return nil, fmt.Errorf("option %s needs %d argument(s)", opt, n)
	}
	a := p.words[p.i : p.i+n]
	p.i += n
	return a, nil
}

// option dispatches one option: generic options first, then the target's
// options, then those of the loaded match modules.
func (p *ruleParser) option(opt string, neg bool) error {
	if spec, ok := genericOptions[opt]; ok {
		return p.apply("", opt, spec, neg)
	}
	if p.r.Target != "" {
		if spec, ok := targetOptions[p.r.Target][opt]; ok {
			return p.applyTarget(opt, spec, neg)
		}
	}
	if module, spec, ok := p.findMatchOption(opt); ok {
		return p.apply(module, opt, spec, neg)
	}
	return p.unknownOption(opt, neg)
}

// findMatchOption looks for opt in the loaded modules, latest first, then in
// the module implied by -p (iptables loads "tcp" for "-p tcp --dport").
func (p *ruleParser) findMatchOption(opt string) (string, optionSpec, bool) {
	for i := len(p.r.Modules) - 1; i >= 0; i-- {
		if spec, ok := matchOptions[p.r.Modules[i]][opt]; ok {
			return p.r.Modules[i], spec, true
		}
	}
	if proto := p.r.Protocol.Name; proto != "" {
		if spec, ok := matchOptions[proto][opt]; ok {
			return proto, spec, true
		}
	}
	return "", optionSpec{}, false
}

func (p *ruleParser) apply(module, opt string, spec optionSpec, neg bool) error {
	if neg && !spec.negatable {
		return fmt.Errorf("option %s cannot be negated", opt)
	}
	args, err := p.args(opt, spec.args)
	if err != nil {
		return err
	}
	if spec.apply == nil {
		p.r.Unknown = append(p.r.Unknown, UnknownMatch{Module: module, Negated: neg, Option: opt, Args: args})
		return nil
	}
	if err := spec.apply(p.r, opt, neg, args); err != nil {
		return fmt.Errorf("%s: %w", opt, err)
	}
	return nil
}

func (p *ruleParser) applyTarget(opt string, spec optionSpec, neg bool) error {
	start := p.i - 1
	if neg && !spec.negatable {
		return fmt.Errorf("option %s cannot be negated", opt)
	}
	args, err := p.args(opt, spec.args)
	if err != nil {
		return err
	}
	if spec.apply != nil {
		if err := spec.apply(p.r, opt, neg, args); err != nil {
			return fmt.Errorf("%s: %w", opt, err)
		}
	}
	p.r.TargetArgs = append(p.r.TargetArgs, p.words[start:p.i]...)
	return nil
}

// unknownOption keeps an option nobody claims. Its arguments are taken
// greedily (every following word that does not start with "-" or is "!").
// After a target the option is the target's; otherwise it belongs to the
// latest module. A stray word that is no option is an error, as in
// iptables-restore.
func (p *ruleParser) unknownOption(opt string, neg bool) error {
	if !strings.HasPrefix(opt, "-") || opt == "-" {
		// iptables-restore: "Bad argument `world'" (e.g. an unquoted
		// comment of several words).
		return fmt.Errorf("bad argument %q (a word that is no option; is a comment of several words unquoted?)", opt)
	}
	start := p.i - 1
	for p.i < len(p.words) && p.words[p.i] != "!" && !strings.HasPrefix(p.words[p.i], "-") {
		p.i++
	}
	args := p.words[start+1 : p.i]
	if p.r.Target != "" && !neg {
		p.r.TargetArgs = append(p.r.TargetArgs, p.words[start:p.i]...)
		return nil
	}
	if len(p.r.Modules) == 0 {
		return fmt.Errorf("unknown option %s (no match module loaded)", opt)
	}
	module := p.r.Modules[len(p.r.Modules)-1]
	p.r.Unknown = append(p.r.Unknown, UnknownMatch{Module: module, Negated: neg, Option: opt, Args: args})
	return nil
}

// parseCounters parses "[packets:bytes]".
func parseCounters(s string) (Counters, error) {
	inner, ok := strings.CutPrefix(s, "[")
	inner, ok2 := strings.CutSuffix(inner, "]")
	pk, by, ok3 := strings.Cut(inner, ":")
	if !ok || !ok2 || !ok3 {
		return Counters{}, fmt.Errorf("bad counters %q (want [packets:bytes])", s)
	}
	return countersFrom(pk, by)
}

func countersFrom(packets, bytes string) (Counters, error) {
	p, err1 := strconv.ParseUint(packets, 10, 64)
	b, err2 := strconv.ParseUint(bytes, 10, 64)
	if err1 != nil || err2 != nil {
		return Counters{}, fmt.Errorf("bad counters %q:%q", packets, bytes)
	}
	return Counters{Packets: p, Bytes: b}, nil
}

// maxChainName is the longest chain name iptables accepts
// (XT_EXTENSION_MAXNAMELEN - 1).
const maxChainName = 28

func checkChainName(name string) error {
	switch {
	case name == "":
		return errors.New("empty chain name")
	case len(name) > maxChainName:
		return fmt.Errorf("chain name %q is longer than %d characters", name, maxChainName)
	case strings.HasPrefix(name, "-") || name == "!":
		return fmt.Errorf("bad chain name %q", name)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c > '~' || c == '"' || c == '\'' {
			return fmt.Errorf("bad character %q in chain name %q", c, name)
		}
	}
	return nil
}
