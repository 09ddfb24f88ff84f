package iptables

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Problem is one finding of CheckJumps.
type Problem struct {
	Table   string
	Chain   string // the chain the finding is about
	Line    int    // line of the offending rule, 0 if none
	Message string
}

// String returns the finding with its table and line.
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("table %s, line %d: %s", p.Table, p.Line, p.Message)
	}
	return fmt.Sprintf("table %s: %s", p.Table, p.Message)
}

// JumpReport is the result of CheckJumps.
type JumpReport struct {
	Errors   []Problem
	Warnings []Problem
}

// Err returns the errors joined into one error, or nil.
func (r JumpReport) Err() error {
	errs := make([]error, 0, len(r.Errors))
	for _, p := range r.Errors {
		errs = append(errs, errors.New(p.String()))
	}
	return errors.Join(errs...)
}

// topLevelChains are the chains kube-proxy's checkIPTablesRuleJumps allows
// to exist without being jumped to (their jumps live in built-in chains).
var topLevelChains = map[string]bool{
	"KUBE-SERVICES": true, "KUBE-EXTERNAL-SERVICES": true, "KUBE-NODEPORTS": true,
	"KUBE-POSTROUTING": true, "KUBE-FORWARD": true, "KUBE-MARK-MASQ": true,
	"KUBE-PROXY-FIREWALL": true, "KUBE-FIREWALL": true, "KUBE-PROXY-CANARY": true,
}

// CheckJumps checks every table the way kube-proxy's checkIPTablesRuleJumps
// does. Errors: a rule that jumps (-j or -g) to a chain the table does not
// have (or has deleted), a jump to a built-in chain, and jump loops, which
// the kernel refuses to load. Warnings: chains jumped to that have no rules
// (KUBE-NODEPORTS excepted: KUBE-SERVICES always jumps to it) and chains
// created but never jumped to (built-in and top-level KUBE-* chains
// excepted).
func CheckJumps(d *Dump) JumpReport {
	var rep JumpReport
	for _, t := range d.Tables {
		checkTableJumps(t, &rep)
	}
	return rep
}

func checkTableJumps(t *Table, rep *JumpReport) {
	jumped := map[string]bool{}
	for _, c := range t.Chains {
		if c.Deleted {
			continue
		}
		for _, r := range c.Rules {
			if !r.Jumps() {
				continue
			}
			jumped[r.Target] = true
			target := t.Chain(r.Target)
			switch {
			case target == nil || target.Deleted:
				rep.Errors = append(rep.Errors, Problem{t.Name, c.Name, r.Line,
					fmt.Sprintf("rule in %s jumps to missing chain %s", c.Name, r.Target)})
			case IsBuiltinChain(t.Name, r.Target):
				rep.Errors = append(rep.Errors, Problem{t.Name, c.Name, r.Line,
					fmt.Sprintf("rule in %s jumps to built-in chain %s", c.Name, r.Target)})
			}
		}
	}
	for _, c := range t.Chains {
		switch {
		case c.Deleted || IsBuiltinChain(t.Name, c.Name):
		case jumped[c.Name] && len(c.Rules) == 0 && c.Name != "KUBE-NODEPORTS":
			rep.Warnings = append(rep.Warnings, Problem{t.Name, c.Name, 0,
				fmt.Sprintf("chain %s is jumped to but has no rules", c.Name)})
		case !jumped[c.Name] && !topLevelChains[c.Name]:
			rep.Warnings = append(rep.Warnings, Problem{t.Name, c.Name, 0,
				fmt.Sprintf("chain %s is created but not used", c.Name)})
		}
	}
	if cycle := FindJumpLoop(t); cycle != nil {
		rep.Errors = append(rep.Errors, Problem{t.Name, cycle[0], 0,
			"jump loop " + strings.Join(cycle, " -> ")})
	}
}

// FindJumpLoop returns one cycle of jumps between t's chains, as the chain
// names along it with the first repeated at the end, or nil if there is
// none. The kernel refuses to load a table with a loop.
func FindJumpLoop(t *Table) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[string]int, len(t.Chains))
	var path []string
	var visit func(name string) []string
	visit = func(name string) []string {
		state[name] = onPath
		path = append(path, name)
		if c := t.Chain(name); c != nil && !c.Deleted {
			for _, r := range c.Rules {
				if !r.Jumps() || t.Chain(r.Target) == nil {
					continue
				}
				switch state[r.Target] {
				case onPath:
					i := slices.Index(path, r.Target)
					return append(slices.Clone(path[i:]), r.Target)
				case unseen:
					if cyc := visit(r.Target); cyc != nil {
						return cyc
					}
				}
			}
		}
		path = path[:len(path)-1]
		state[name] = done
		return nil
	}
	for _, c := range t.Chains {
		if state[c.Name] == unseen {
			if cyc := visit(c.Name); cyc != nil {
				return cyc
			}
		}
	}
	return nil
}
