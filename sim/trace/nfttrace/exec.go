package nfttrace

import (
	"fmt"
	"net/netip"
	"strings"
)

// actKind is what a rule asks the chain walker to do next.
type actKind uint8

const (
	actNone    actKind = iota // no match, or only side effects: next rule
	actVerdict                // jump, goto, return, accept, drop
	actFinal                  // reject, or a NAT statement ending a nat chain
	actFork                   // numgen: one branch per generated value
	actForkNAT                // numgen DNAT map: one DNAT per generated value
)

// action is the result of one rule.
type action struct {
	kind  actKind
	v     *verdict
	final string
	fork  *op
}

// step records that rule r of chain c matched, with an optional note.
func (tr *tracer) step(st *state, c *cchain, r *crule, stepped *bool, note string) {
	if tr.p.skipPath {
		return
	}
	if !*stepped {
		st.path = append(st.path, Step{Hook: st.hook, Table: c.table, Chain: c.name, Index: r.index, Line: r.line, Rule: r.text})
		*stepped = true
	}
	if note != "" {
		st.path[len(st.path)-1].Note = note
	}
}

// exec evaluates rule r of chain c for st.
func (tr *tracer) exec(st *state, c *cchain, r *crule) (action, error) {
	stepped := false
	for i := range r.ops {
		o := &r.ops[i]
		switch o.kind {
		case opVmap:
			st.lookups++
			v := o.set.exact[keyOfPacket(st, o.fields)]
			if v == nil {
				return action{}, nil
			}
			tr.step(st, c, r, &stepped, v.note)
			return action{kind: actVerdict, v: v}, nil
		case opNumgen:
			st.lookups++
			tr.step(st, c, r, &stepped, "")
			return action{kind: actFork, fork: o}, nil
		case opNumgenDNAT:
			if !st.nat {
				return action{}, fmt.Errorf("chain %s, line %d: dnat outside a nat base chain", c.name, r.line)
			}
			st.lookups++
			tr.step(st, c, r, &stepped, "")
			return action{kind: actForkNAT, fork: o}, nil
		case opVerdict:
			tr.step(st, c, r, &stepped, "")
			return action{kind: actVerdict, v: o.verdict}, nil
		case opReject:
			tr.step(st, c, r, &stepped, "reject")
			return action{kind: actFinal, final: "reject"}, nil
		case opDNAT:
			if !st.nat {
				return action{}, fmt.Errorf("chain %s, line %d: dnat outside a nat base chain", c.name, r.line)
			}
			port := o.port
			if port == 0 {
				port = st.dport
			}
			st.dnat = netip.AddrPortFrom(o.addr, port)
			st.dst, st.dport = o.addr, port
			tr.step(st, c, r, &stepped, o.note)
			return action{kind: actFinal, final: "accept"}, nil
		case opMasquerade:
			if !st.nat {
				return action{}, fmt.Errorf("chain %s, line %d: masquerade outside a nat base chain", c.name, r.line)
			}
			st.masq = true
			tr.step(st, c, r, &stepped, "masquerade")
			return action{kind: actFinal, final: "accept"}, nil
		case opMarkSet:
			st.mark = markOp(o.markOp, st.mark, o.value)
			tr.step(st, c, r, &stepped, o.note)
		case opSetUpdate:
			st.affSet, st.affExpiry = o.set.name, o.set.timeout
			tr.step(st, c, r, &stepped, o.note)
		case opNoop:
		case opNotrack:
			st.untracked = true
			tr.step(st, c, r, &stepped, o.note)
		case opUndecided, opUnmodelled:
			if o.kind == opUnmodelled || !r.decidesNothing(i) {
				tr.step(st, c, r, &stepped, "undecided: "+o.note)
				st.unknown = fmt.Sprintf("chain %s rule %d (line %d): %s", c.name, r.index+1, r.line, o.note)
				return action{kind: actFinal, final: "unknown"}, nil
			}
		default:
			ok, why := tr.match(st, o)
			if why != "" {
				tr.step(st, c, r, &stepped, "undecided: "+why)
				st.unknown = fmt.Sprintf("chain %s rule %d (line %d): %s", c.name, r.index+1, r.line, why)
				return action{kind: actFinal, final: "unknown"}, nil
			}
			if !ok {
				return action{}, nil
			}
		}
	}
	tr.step(st, c, r, &stepped, "")
	return action{}, nil
}

// markOp applies a mark statement.
func markOp(op string, mark, v uint32) uint32 {
	switch op {
	case "or":
		return mark | v
	case "xor":
		return mark ^ v
	case "and":
		return mark & v
	}
	return v
}

// decidesNothing reports whether the ops after op i of r neither end the
// rule's chain walk nor change the packet (counter, log): an undecided
// match there cannot change the outcome.
func (r *crule) decidesNothing(i int) bool {
	for _, o := range r.ops[i+1:] {
		if o.kind != opNoop {
			return false
		}
	}
	return true
}

// match evaluates one match op; why is set when it cannot be decided.
func (tr *tracer) match(st *state, o *op) (ok bool, why string) {
	if o.family != 0 && (o.family == 4) != st.src.Is4() {
		return false, "" // the other family's header: the dependency fails
	}
	switch o.kind {
	case opMatchAddr:
		a := st.src
		if o.field == fieldDst {
			a = st.dst
		}
		for _, p := range o.prefixes {
			if p.Contains(a) {
				ok = true
				break
			}
		}
	case opMatchSet:
		a := st.src
		if o.fields[0] == fieldDst {
			a = st.dst
		}
		ok = o.set.contains(keyOfPacket(st, o.fields), a)
		if !ok && o.set.dynamic && tr.affinity == "" {
			tr.affinity = fmt.Sprintf("ClientIP affinity: %s is not in @%s yet (a new client), so numgen picks the endpoint; "+
				"the endpoint chain then records the client (update @set), and its later connections within %s skip numgen and go to the same endpoint",
				st.src, o.set.name, o.set.timeout)
		}
	case opMatchProto:
		ok = contains(o.protos, st.proto)
	case opMatchPort:
		ok = contains(o.ports, st.dport)
	case opMatchMark:
		ok = st.mark&o.mask == o.value
	case opMatchConst:
		ok = o.constant
	case opMatchFib:
		a := st.src
		if o.field == fieldFibDst {
			a = st.dst
		}
		ok = contains(o.fibTypes, tr.p.addrType(a))
	case opMatchCt:
		ok = st.ctState()&o.value != 0
	case opMatchCtStatus:
		ok = st.ctStatus()&o.value != 0
	case opMatchIface:
		name, known := st.in, st.inKnown
		if o.field == fieldOIf {
			name, known = st.out, st.outKnown
		}
		if !known {
			return false, fmt.Sprintf("%s %v (give the interface)", map[bool]string{true: "oifname", false: "iifname"}[o.field == fieldOIf], o.names)
		}
		for _, n := range o.names {
			if p, wild := strings.CutSuffix(n, "*"); (wild && strings.HasPrefix(name, p)) || name == n {
				ok = true
			}
		}
	}
	return ok != o.neg, ""
}

// addrType is what fib ... type says of a: local, broadcast, multicast or
// unicast.
func (p *Program) addrType(a netip.Addr) string {
	switch {
	case p.isLocal(a):
		return "local"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	case a.IsMulticast():
		return "multicast"
	}
	return "unicast"
}

// contains reports whether v is in list.
func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
