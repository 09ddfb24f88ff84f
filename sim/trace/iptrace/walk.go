package iptrace

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
)

// initialDepth is the jump stack a branch starts with; it grows when a
// walk nests deeper. The kernel's legacy tables have no depth limit (their
// stack is as deep as the table has chains), and a jump loop is refused
// when the tracer is built, so a walk's depth is bounded by the dump.
const initialDepth = 16

// stage is one place a packet crosses: a table's built-in chain at a hook.
type stage uint8

// The stages, grouped by hook; within a hook in the kernel's priority order
// (raw -300, conntrack -200, mangle -150, nat DNAT -100, filter 0, security
// 50, nat SNAT 100).
const (
	stageRawPrerouting stage = iota
	stageManglePrerouting
	stageNatPrerouting
	stageMangleInput
	stageFilterInput
	stageSecurityInput
	stageNatInput
	stageMangleForward
	stageFilterForward
	stageSecurityForward
	stageRawOutput
	stageMangleOutput
	stageNatOutput
	stageFilterOutput
	stageSecurityOutput
	stageManglePostrouting
	stageNatPostrouting
	stageDone
)

// The hooks, for the interfaces a packet has there.
const (
	hookPrerouting uint8 = iota
	hookInput
	hookForward
	hookOutput
	hookPostrouting
)

var stageHooks = [stageDone]struct {
	table int
	chain string
	hook  uint8
}{
	{tableRaw, "PREROUTING", hookPrerouting}, {tableMangle, "PREROUTING", hookPrerouting}, {tableNat, "PREROUTING", hookPrerouting},
	{tableMangle, "INPUT", hookInput}, {tableFilter, "INPUT", hookInput}, {tableSecurity, "INPUT", hookInput}, {tableNat, "INPUT", hookInput},
	{tableMangle, "FORWARD", hookForward}, {tableFilter, "FORWARD", hookForward}, {tableSecurity, "FORWARD", hookForward},
	{tableRaw, "OUTPUT", hookOutput}, {tableMangle, "OUTPUT", hookOutput}, {tableNat, "OUTPUT", hookOutput},
	{tableFilter, "OUTPUT", hookOutput}, {tableSecurity, "OUTPUT", hookOutput},
	{tableMangle, "POSTROUTING", hookPostrouting}, {tableNat, "POSTROUTING", hookPostrouting},
}

// frame is a position in a chain on the jump stack.
type frame struct {
	chain int32
	pos   int32 // next rule to look at
}

// branch is one path of a packet through the rules; a statistic rule, or a
// match the tracer cannot decide, splits a branch in two.
type branch struct {
	outcome
	pkt    pktState
	frames []frame // the jump stack, frames[:depth] in use
	depth  int
	stage  stage
	// A queued branch starts its path anew at the end of the arena when it
	// resumes: a copy of its parent's path s.steps[start:cut] (up to the
	// fork), then the step of the rule it forked at (Matched false), if any.
	// So every branch's path is contiguous, and a Trace's paths are slices
	// of the arena.
	fresh    bool
	cut      int32
	forkedAt *stepTmpl // that rule's template, nil if none
}

// outcome is what a finished branch reports.
type outcome struct {
	prob, eff  float64
	rules      int   // rules a linear walk evaluates
	addrTypes  int   // of them, those whose addrtype match the kernel evaluates (see addrTypesWalked)
	start, end int32 // the path is s.steps[start:end] (end set when the branch ends)
	assumed    int32 // last assumption (undecided match) in the arena, -1 if none
	verdict    Verdict
	masquerade bool
	dnatTo     netip.AddrPort
	service    int32  // see compiledRule.service
	mark       uint32 // the packet mark when the branch ended
}

// runBranch walks b through its remaining stages.
func (t *IPTablesTracer) runBranch(s *scratch, b *branch) error {
	t.resume(s, b)
	for b.stage != stageDone {
		v, err := t.runStage(s, b)
		if err != nil {
			return err
		}
		if v != vAccept {
			b.verdict, b.stage, b.mark = v.verdict(), stageDone, b.pkt.mark
			b.end = int32(len(s.steps))
			return nil
		}
	}
	b.verdict, b.mark = Accept, b.pkt.mark
	b.end = int32(len(s.steps))
	return nil
}

// runStage runs b through stage b.stage and moves it on to the next one
// (the memoized stages from there on, when b enters a memoizable one). It
// returns the verdict, vAccept to go on.
func (t *IPTablesTracer) runStage(s *scratch, b *branch) (vcode, error) {
	start := t.hookChain[b.stage]
	tbl := t.tables[stageHooks[b.stage].table]
	if b.depth == 0 { // entering the hook; a forked branch resumes mid-walk
		if t.skipStage(b, start) {
			b.stage = t.nextStage(b)
			return vAccept, nil
		}
		if t.memoOK[b.stage] && !b.pkt.established {
			return t.runMemoized(s, b)
		}
		if t.ifaces {
			b.pkt.setIfaces(b.stage)
		}
		b.enter(start)
	}
	v, err := t.walk(s, b, tbl)
	b.depth = 0
	if v = t.policy(s, tbl, &tbl.chains[start], v); v == vAccept {
		b.stage = t.nextStage(b)
	}
	return v, err
}

// skipStage reports whether b does not cross b.stage's chain (start): the
// dump lacks it, or it is a nat chain and conntrack does not consult nat (an
// untracked or established packet, or a looped-back one already NATed).
func (t *IPTablesTracer) skipStage(b *branch, start int32) bool {
	if start < 0 {
		return true
	}
	return stageHooks[b.stage].table == tableNat && (b.pkt.untracked || b.pkt.established || b.pkt.looped)
}

// nextStage is the stage after b.stage for an accepted packet. After
// PREROUTING and OUTPUT it routes: to INPUT if the (DNATed) destination is
// local, else to FORWARD or out. A host process's packet to a local
// address loops back through lo: PREROUTING (raw and mangle; nat already
// ran) and INPUT.
func (t *IPTablesTracer) nextStage(b *branch) stage {
	switch b.stage {
	case stageNatPrerouting:
		if b.pkt.dstLocal {
			return t.skipTo[stageMangleInput]
		}
		return t.skipTo[stageMangleForward]
	case stageNatInput:
		return stageDone
	case stageSecurityForward:
		return t.skipTo[stageManglePostrouting]
	case stageNatPostrouting:
		if b.pkt.fromHost && !b.pkt.looped && b.pkt.dstLocal {
			b.pkt.looped = true
			return t.skipTo[stageRawPrerouting]
		}
		return stageDone
	}
	return t.skipTo[b.stage+1]
}

// routingStage reports whether the stage after st depends on routing (see
// nextStage), so the walk cannot skip st even when the dump lacks it.
func routingStage(st stage) bool {
	switch st {
	case stageNatPrerouting, stageNatInput, stageSecurityForward, stageNatPostrouting:
		return true
	}
	return false
}

// setSkips fills t.skipTo: from each stage, the first one at or after it
// that the dump has or that routes, so nextStage passes over absent tables
// in one step.
func (t *IPTablesTracer) setSkips() {
	t.skipTo[stageDone] = stageDone
	for st := stageDone - 1; ; st-- {
		t.skipTo[st] = st
		if t.hookChain[st] < 0 && !routingStage(st) {
			t.skipTo[st] = t.skipTo[st+1]
		}
		if st == 0 {
			break
		}
	}
}

// vcode is a hook verdict inside the walk (vNone: no verdict yet).
type vcode uint8

const (
	vNone vcode = iota
	vAccept
	vDrop
	vReject
	vUnknown
)

func (v vcode) verdict() Verdict {
	switch v {
	case vDrop:
		return Drop
	case vReject:
		return Reject
	case vUnknown:
		return Unknown
	}
	return Accept
}

// simpleChecks are the matches decided inline by the walk, without a call
// (and --ctstate, unless the packet is established).
const simpleChecks = checkDst | checkSrc | checkProto | checkDPort | checkSPort | checkMark

// simpleMatch evaluates a rule whose checks are all in simpleChecks, or
// checkCT for a packet that is not established. IPv4 addresses, the
// protocol and the destination port are compared inline.
func simpleMatch(r *compiledRule, p *pktState) bool {
	c := r.checks
	if c&checkDst != 0 {
		if p.is4 && r.flags&flagDstV4 != 0 {
			if (p.dst4&r.dstMask == r.dstAddr) == (r.flags&flagDstNeg != 0) {
				return false
			}
		} else if !r.dstMatches(p) {
			return false
		}
	}
	if c&checkProto != 0 && (r.flags&flagProtoAny != 0 || r.proto == p.proto) == (r.flags&flagProtoNeg != 0) {
		return false
	}
	if c&checkDPort != 0 && (p.dport >= r.dportLo && p.dport <= r.dportHi) == (r.flags&flagDPortNeg != 0) {
		return false
	}
	if c&checkSrc != 0 {
		if p.is4 && r.flags&flagSrcV4 != 0 {
			if (p.src4&r.srcMask == r.srcAddr) == (r.flags&flagSrcNeg != 0) {
				return false
			}
		} else if !r.srcMatches(p) {
			return false
		}
	}
	if c&(checkCT|checkSPort|checkMark) == 0 {
		return true
	}
	return !(c&checkCT != 0 && !r.ct.test(p.ctState()) ||
		c&checkSPort != 0 && !r.sport.matches(p.sport) ||
		c&checkMark != 0 && (p.mark&r.mark.mask == r.mark.value) == r.mark.neg)
}

// walk runs the jump stack of b in tbl until a verdict for this hook, or
// vNone when it runs off the end of the built-in chain (whose policy then
// applies: see policy). It follows jumps, gotos and
// returns itself and calls out only for matches beyond simpleChecks, forks
// and terminal targets.
func (t *IPTablesTracer) walk(s *scratch, b *branch, tbl *compiledTable) (vcode, error) {
	// The rule count and the path are kept in locals and stored back into b
	// and s before anything that reads them (forks copy b) and on return.
	paths := !t.skipPaths
	steps, nrules, tmpls := s.steps, b.rules, t.steps
	for b.depth > 0 {
		f := &b.frames[b.depth-1]
		c := &tbl.chains[f.chain]
		rules := c.rules
		pos := int(f.pos)
		addrTypes := tbl.addrTypesOf(f.chain)
	chain:
		for {
			i := pos
			if c.index != nil {
				var ahead *aheadBlock
				if i, ahead = c.next(pos, &b.pkt); ahead != nil && ahead.chain != s.aheadOf {
					s.touched += tbl.touch(ahead)
					s.aheadOf = ahead.chain
				}
			} else if pos >= len(rules) {
				i = -1
			}
			if i < 0 {
				nrules += len(rules) - pos
				if addrTypes != nil {
					b.addrTypes += addrTypesWalked(rules, addrTypes, pos, len(rules), &b.pkt)
				}
				b.depth--
				break
			}
			nrules += i - pos + 1
			if addrTypes != nil {
				b.addrTypes += addrTypesWalked(rules, addrTypes, pos, i+1, &b.pkt)
			}
			pos = i + 1
			r := &rules[i]
			matched := true
			if ch := r.checks; ch&^simpleChecks == 0 || (ch&^(simpleChecks|checkCT) == 0 && !b.pkt.established) {
				matched = ch == 0 || simpleMatch(r, &b.pkt)
			} else {
				f.pos = int32(pos)
				var undecided string
				if matched, undecided = t.matches(s, b, r); undecided != "" {
					s.steps, b.rules = steps, nrules
					var done bool
					matched, done = t.forkUndecided(s, b, tbl, f.chain, i, undecided)
					if done {
						return vUnknown, nil
					}
				}
			}
			if matched && r.flags&flagStatRandom != 0 {
				f.pos = int32(pos)
				s.steps, b.rules = steps, nrules
				var err error
				if matched, err = t.fork(s, b, tbl.id, f.chain, i, r); err != nil {
					return vNone, err
				}
			}
			if paths {
				steps = append(steps, Step{tmpl: &tmpls[c.stepBase+uint32(i)], Matched: matched})
			}
			if !matched {
				continue
			}
			switch r.target {
			case targetNone, targetContinue:
			case targetMark:
				b.pkt.mark = (b.pkt.mark &^ r.markM) ^ r.tgtA
			case targetJump, targetGoto:
				if r.target == targetGoto {
					*f = frame{chain: r.chain}
				} else {
					f.pos = int32(pos)
					if b.depth == len(b.frames) {
						b.grow() // f is not used again before the walk re-reads it
					}
					b.frames[b.depth] = frame{chain: r.chain}
					b.depth++
				}
				// A KUBE-SERVICES rule names the service (its name, read at
				// the end, is loaded now); a chain that fans out has its
				// look-ahead loaded (see aheadBlock).
				if r.service != 0 && b.service == 0 {
					b.service = r.service
					s.touched += uint32(len(tbl.services[r.service-1]))
				}
				if tbl.chains[r.chain].fans && r.chain != s.aheadOf {
					s.touched += tbl.touch(&tbl.aheads[r.chain])
					s.aheadOf = r.chain
				}
				break chain
			case targetReturn:
				b.depth--
				break chain
			default:
				if v := t.apply(s, b, tbl, r); v != vNone {
					s.steps, b.rules = steps, nrules
					return v, nil
				}
			}
		}
	}
	s.steps, b.rules = steps, nrules
	return vNone, nil
}

// addrTypesWalked counts the rules among at (a chain's addrtype rules, in
// order) from index lo to hi (exclusive) whose IP header part (-s, -d, -p)
// p passes: the kernel compares a rule's header before its -m matches
// (ip_packet_match in ipt_do_table), so a walk past such a rule evaluates
// its addrtype match, a routing lookup of the address (inet_dev_addr_type),
// whether or not the rule's later matches (kube-proxy's --dport) match.
// Interfaces (-i, -o) are taken as matching and matches written before the
// addrtype one as passing (kube-proxy writes a comment there).
func addrTypesWalked(rules []compiledRule, at []int32, lo, hi int, p *pktState) int {
	n := 0
	k, _ := slices.BinarySearch(at, int32(lo))
	for ; k < len(at) && int(at[k]) < hi; k++ {
		if headerMatches(&rules[at[k]], p) {
			n++
		}
	}
	return n
}

// headerMatches reports whether p passes r's -d, -s and -p.
func headerMatches(r *compiledRule, p *pktState) bool {
	c := r.checks
	return (c&checkDst == 0 || r.dstMatches(p)) && (c&checkSrc == 0 || r.srcMatches(p)) &&
		(c&checkProto == 0 || r.protoMatches(p.proto))
}

// policy is the verdict of a walk that ran off the end of built-in chain
// builtin (vNone: none, so the chain's policy applies); it notes a policy
// kept from before a restore.
func (t *IPTablesTracer) policy(s *scratch, tbl *compiledTable, builtin *compiledChain, v vcode) vcode {
	if v != vNone {
		return v
	}
	if builtin.policyKept {
		s.note(keptPolicyNote(tbl, builtin))
	}
	if builtin.policyDrop {
		return vDrop
	}
	return vAccept
}

// keptPolicyNote is the note on a built-in chain declared with policy "-".
func keptPolicyNote(tbl *compiledTable, builtin *compiledChain) string {
	return fmt.Sprintf("%s %s has policy \"-\" (kept from before the restore); taken as ACCEPT", tbl.name, builtin.name)
}

// fork splits b at a statistic rule that otherwise matched: a copy that
// does not take the rule is queued, b takes it. It returns whether b takes
// the rule (a probability of 0 or 1 does not fork).
func (t *IPTablesTracer) fork(s *scratch, b *branch, table uint8, chain int32, i int, r *compiledRule) (bool, error) {
	switch r.statEff {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	if s.branches >= t.maxBranches {
		return false, errors.New("too many statistic branches (Options.MaxBranches)")
	}
	s.branches++
	nb := s.push(b)
	nb.prob *= 1 - r.statNominal
	nb.eff *= 1 - r.statEff
	nb.forkAt(s, &t.steps[t.tables[table].chains[chain].stepBase+uint32(i)])
	b.prob *= r.statNominal
	b.eff *= r.statEff
	return true, nil
}

// forkUndecided splits b at a rule whose match the tracer cannot decide:
// a copy assuming it does not match is queued, b assumes it matches. Both
// keep b's probability; finish compares what the assumptions lead to. Past
// Options.MaxBranches the branch ends with verdict unknown (done).
func (t *IPTablesTracer) forkUndecided(s *scratch, b *branch, tbl *compiledTable, chain int32, i int, why string) (matched, done bool) {
	if s.branches >= t.maxBranches {
		s.note("too many undecided matches to follow every branch (Options.MaxBranches)")
		return false, true
	}
	s.branches++
	nb := s.push(b)
	nb.assumed = s.addAssumption(b.assumed, tbl.id, chain, int32(i), false, why)
	nb.forkAt(s, &t.steps[tbl.chains[chain].stepBase+uint32(i)])
	b.assumed = s.addAssumption(b.assumed, tbl.id, chain, int32(i), true, why)
	return true, false
}

// forkAt marks a queued copy of the running branch: its path is the
// running branch's so far, then the step of the rule it forked at.
func (b *branch) forkAt(s *scratch, step *stepTmpl) {
	b.fresh, b.cut, b.forkedAt = true, int32(len(s.steps)), step
}

func (t *IPTablesTracer) isLocal(a netip.Addr) bool {
	if a.IsLoopback() {
		return true
	}
	_, ok := t.local[a]
	return ok
}
