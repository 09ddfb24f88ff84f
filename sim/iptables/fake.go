package iptables

import (
	"bytes"
	"fmt"
	"io"
)

// Apply returns the rules `iptables-restore [--noflush]` would leave after
// loading restoreInput on top of current, which is not changed (nil means
// empty). It is a validating fake, like kube-proxy's FakeIPTables.RestoreAll:
//   - without noflush each table in the input is flushed first (user chains
//     deleted, built-in chains emptied, policies reset to ACCEPT);
//   - a declared chain that exists has its rules replaced (declaring a chain
//     flushes it) and takes the declared policy and counters;
//   - a new chain is appended; "-X" deletes a chain;
//   - rules for a built-in chain the input does not declare are appended;
//   - tables the input does not mention are untouched.
//
// Afterwards every jump in the changed tables must reach a live chain;
// otherwise Apply fails with "deleted chain %q is referenced by existing
// rules" or "rule %q jumps to a non-existent chain" and the caller keeps
// current, i.e. the whole restore is rolled back (iptables-nft-restore
// commits its input as one transaction).
//
// Rules for a chain the input does not declare are a parse error, as in
// kube-proxy's parser, even when the chain exists in current.
func Apply(current *Dump, restoreInput io.Reader, noflush bool) (*Dump, error) {
	in, err := Parse(restoreInput)
	if err != nil {
		return nil, fmt.Errorf("parse restore input: %w", err)
	}
	next := &Dump{}
	if current != nil {
		next = current.Clone()
	}
	for _, t := range in.Tables {
		state := next.Table(t.Name)
		if state == nil {
			state = NewTable(t.Name)
			next.Tables = append(next.Tables, state)
		}
		if !noflush {
			flushTable(state)
		}
		if err := applyTable(state, t); err != nil {
			return nil, fmt.Errorf("restore table %s: %w", t.Name, err)
		}
	}
	for _, t := range in.Tables {
		if err := checkRestoredJumps(next.Table(t.Name), t); err != nil {
			return nil, fmt.Errorf("restore table %s: %w", t.Name, err)
		}
	}
	return next, nil
}

// NewTable returns an empty table with its built-in chains (policy ACCEPT).
func NewTable(name string) *Table {
	t := &Table{Name: name}
	for _, c := range builtinChains[name] {
		t.AddChain(&Chain{Name: c, Policy: "ACCEPT"})
	}
	return t
}

func flushTable(t *Table) {
	fresh := NewTable(t.Name)
	t.Chains = fresh.Chains
	t.Reindex()
}

func applyTable(state, in *Table) error {
	for _, c := range in.Chains {
		old := state.Chain(c.Name)
		switch {
		case c.Deleted && old == nil:
			// declared and deleted in the same input: nothing to do
		case c.Deleted:
			state.RemoveChain(c.Name)
		case old == nil:
			nc := *c
			if IsBuiltinChain(in.Name, c.Name) {
				return fmt.Errorf("built-in chain %q missing from table", c.Name)
			}
			state.AddChain(&nc)
		case c.Implicit:
			old.Rules = append(old.Rules[:len(old.Rules):len(old.Rules)], c.Rules...)
		default:
			old.Rules = c.Rules
			old.Counters = c.Counters
			if c.Policy != "-" {
				old.Policy = c.Policy
			}
		}
	}
	return nil
}

// checkRestoredJumps validates every jump in state after in was applied.
func checkRestoredJumps(state, in *Table) error {
	for _, c := range state.Chains {
		for _, r := range c.Rules {
			if !r.Jumps() || state.Chain(r.Target) != nil {
				continue
			}
			if in.Chain(r.Target) != nil {
				return fmt.Errorf("deleted chain %q is referenced by existing rules (%q)", r.Target, r.String())
			}
			return fmt.Errorf("rule %q jumps to a non-existent chain", r.String())
		}
	}
	return nil
}

// Fake is an in-memory iptables that validates what it is asked to load,
// in the manner of kube-proxy's FakeIPTables. It starts with the filter and
// nat tables and their built-in chains.
type Fake struct {
	Dump     *Dump
	Restores int // successful restores
	Failures int // rejected restores
}

// NewFake returns a Fake with empty filter and nat tables.
func NewFake() *Fake {
	return &Fake{Dump: &Dump{Tables: []*Table{NewTable("filter"), NewTable("nat")}}}
}

// Restore loads input as `iptables-restore [--noflush]` would (see Apply).
// On error the rules are left as they were.
func (f *Fake) Restore(input []byte, noflush bool) error {
	next, err := Apply(f.Dump, bytes.NewReader(input), noflush)
	if err != nil {
		f.Failures++
		return err
	}
	f.Dump = next
	f.Restores++
	return nil
}

// Save returns the current rules in iptables-restore form.
func (f *Fake) Save() string {
	return f.Dump.String()
}
