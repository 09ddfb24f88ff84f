package migrate

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/model"
)

// Probe is one path the kernel is asked about (svclab migrate --verify),
// with the outcome the tracer gave it on each side.
type Probe struct {
	// Class is the index of the difference class in Result.Classes the
	// probe stands for; Control (-1) for a path both sides treat the same.
	Class    int
	Path     Path
	From, To Outcome
}

// Control is Probe.Class of a path that behaves the same on both sides;
// Sampled of a path drawn at random (Input.Sample).
const (
	Control = -1
	Sampled = -2
)

// maxControls is how many unchanged paths are probed as controls.
const maxControls = 8

// Outcome returns the tracer's outcome of the probe on side ("from" or
// "to").
func (p Probe) Outcome(side string) Outcome {
	if side == SideFrom {
		return p.From
	}
	return p.To
}

// The two sides' names in a verification.
const (
	SideFrom = "from"
	SideTo   = "to"
)

// VerifyProbes picks the paths the kernel is asked about: for each group
// of each class its example and, per further family the group has, that
// family's first path; and a few paths the tracer says behave the same
// (Result.Controls), as a control.
func VerifyProbes(r *Result) []Probe {
	var out []Probe
	for ci, c := range r.Classes {
		for _, g := range c.Groups {
			out = append(out, Probe{Class: ci, Path: g.Example.Path, From: g.Example.From, To: g.Example.To})
			seen := []model.Family{g.Example.Path.Family}
			for _, d := range r.Differences {
				if d.Path.Kind() == g.Kind && d.Change == g.Change && !slices.Contains(seen, d.Path.Family) {
					seen = append(seen, d.Path.Family)
					out = append(out, Probe{Class: ci, Path: d.Path, From: d.From, To: d.To})
				}
			}
		}
	}
	for _, d := range r.Controls {
		out = append(out, Probe{Class: Control, Path: d.Path, From: d.From, To: d.To})
	}
	for _, d := range r.Sampled {
		out = append(out, Probe{Class: Sampled, Path: d.Path, From: d.From, To: d.To})
	}
	return out
}

// sample draws n of the paths at random, seeded, with both outcomes.
func sample(paths []Path, before, after []Outcome, n int, seed uint64) []Difference {
	if n <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x5a3d))
	var out []Difference
	for _, i := range rng.Perm(len(paths))[:min(n, len(paths))] {
		out = append(out, Difference{Path: paths[i], From: before[i], To: after[i], Change: Change(before[i], after[i])})
	}
	return out
}

// controls picks up to maxControls paths whose outcome is the same on
// both sides, the first of each kind and family.
func controls(paths []Path, before, after []Outcome) []Difference {
	var out []Difference
	seen := map[string]bool{}
	for i, p := range paths {
		key := p.Kind() + "\x00" + p.Family.String()
		if len(out) == maxControls || seen[key] || Change(before[i], after[i]) != "" {
			continue
		}
		seen[key] = true
		out = append(out, Difference{Path: p, From: before[i], To: after[i]})
	}
	return out
}

// Seen is what the kernel did with one connection of a probe.
type Seen string

// What the kernel can do with a connection, as the client and the lab's
// servers see it.
const (
	// SeenEndpoint: an endpoint's server answered (Observation.Endpoint).
	SeenEndpoint Seen = "answered by an endpoint"
	// SeenUntouched: the connection reached its destination unchanged:
	// the node's own server (a local address) or the network beyond the
	// node (the lab's upstream answers every address it routes).
	SeenUntouched Seen = "reached its destination unchanged"
	SeenRefused   Seen = "refused"     // ECONNREFUSED: a RST or ICMP port unreachable
	SeenUnreach   Seen = "unreachable" // ICMP host, net or admin unreachable
	SeenTimeout   Seen = "timed out"   // no answer: dropped
	// SeenDenied: the node's own OUTPUT chain dropped it (EPERM).
	SeenDenied Seen = "denied on the node (EPERM)"
)

// Observation is one connection of a probe, as the kernel handled it.
type Observation struct {
	Seen Seen `json:"seen"`
	// Endpoint is the answering endpoint ("IP:port"); Source the client
	// address it saw.
	Endpoint string     `json:"endpoint,omitempty"`
	Source   netip.Addr `json:"source,omitzero"`
	Detail   string     `json:"detail,omitempty"`
}

// String is the observation in one line.
func (o Observation) String() string {
	if o.Seen == SeenEndpoint {
		return fmt.Sprintf("answered by %s (saw %s)", o.Endpoint, o.Source)
	}
	if o.Detail != "" {
		return fmt.Sprintf("%s (%s)", o.Seen, o.Detail)
	}
	return string(o.Seen)
}

// Agrees reports whether what the kernel did with a probe's connections
// is the tracer's outcome for that side, and if not, why not. Served: every
// connection answered by one of the outcome's endpoints, which saw the
// source the outcome says (the client's address, or another: masqueraded;
// not checked from the node without a bound source). Dropped: timed out
// or denied. Rejected: refused or unreachable. Not handled: reached its
// destination unchanged (UDP: or no answer, as a datagram to a port
// nothing serves may get none).
func Agrees(p Path, want Outcome, got []Observation) (bool, string) {
	if len(got) == 0 {
		return false, "no connection was made"
	}
	for _, o := range got {
		if ok, why := agreesOne(p, want, o); !ok {
			return false, why
		}
	}
	return true, ""
}

func agreesOne(p Path, want Outcome, o Observation) (bool, string) {
	switch want.Handling {
	case Served:
		if o.Seen != SeenEndpoint {
			return false, fmt.Sprintf("the tracer has it served, the kernel: %s", o)
		}
		i := slices.IndexFunc(want.Endpoints, func(r Reached) bool { return r.Endpoint == o.Endpoint })
		if i < 0 {
			return false, fmt.Sprintf("%s answered, which the tracer does not list", o.Endpoint)
		}
		if !p.Query.Src.IsValid() {
			return true, ""
		}
		sees := "client"
		if o.Source != p.Query.Src {
			sees = "node"
		}
		if sees != want.Endpoints[i].Sees {
			return false, fmt.Sprintf("%s saw %s (%s); the tracer says it sees %s", o.Endpoint, o.Source, sees, want.Endpoints[i].Sees)
		}
		return true, ""
	case Dropped:
		return expectSeen(o, "dropped", SeenTimeout, SeenDenied)
	case Rejected:
		return expectSeen(o, "rejected", SeenRefused, SeenUnreach)
	}
	if p.Query.Proto == model.UDP {
		return expectSeen(o, "not handled", SeenUntouched, SeenTimeout)
	}
	return expectSeen(o, "not handled", SeenUntouched)
}

func expectSeen(o Observation, what string, ok ...Seen) (bool, string) {
	if slices.Contains(ok, o.Seen) {
		return true, ""
	}
	return false, fmt.Sprintf("the tracer has it %s, the kernel: %s", what, o)
}

// Kernel is one kernel run of a side: the dataplane its rules were loaded
// into, and for each probe the connections made, or why the side was not
// verified.
type Kernel struct {
	Side      string `json:"side"`
	Dataplane string `json:"dataplane"`
	// Skipped says why this side was not verified ("" when it was).
	Skipped string `json:"skipped,omitempty"`
	// Seen is indexed like the probes; a nil entry is a probe this run
	// did not send, with Unsent[i] saying why.
	Seen   [][]Observation `json:"-"`
	Unsent []string        `json:"-"`
}

// State is a class's verification verdict.
type State string

// The verdicts.
const (
	Confirmed    State = "CONFIRMED"
	Contradicted State = "CONTRADICTED"
	NotVerified  State = "NOT VERIFIED"
)

// Check is one probe on one kernel run.
type Check struct {
	Path      Path          `json:"path"`
	Side      string        `json:"side"`
	Dataplane string        `json:"dataplane"`
	Tracer    Outcome       `json:"tracer"`
	Kernel    []Observation `json:"kernel,omitempty"`
	// Agree is set when the probe was sent; Why says what disagreed, or
	// why the probe was not sent.
	Sent  bool   `json:"sent"`
	Agree bool   `json:"agree"`
	Why   string `json:"why,omitempty"`
}

// Verdict is the kernel's verdict on one class (or on the controls).
type Verdict struct {
	Class  string  `json:"class"`
	State  State   `json:"state"`
	Reason string  `json:"reason,omitempty"`
	Checks []Check `json:"checks"`
}

// Verification is the kernel's verdicts: one per class, in the order of
// Result.Classes, and the controls' last.
type Verification struct {
	Kernels  []string  `json:"kernels"`
	Verdicts []Verdict `json:"verdicts"`
}

// Contradicted reports whether the kernel contradicted any class or
// control.
func (v *Verification) Contradicted() bool {
	return v != nil && slices.ContainsFunc(v.Verdicts, func(d Verdict) bool { return d.State == Contradicted })
}

// Judge compares each probe's kernel observations with the tracer's
// outcome for the side of each kernel run, and gives each class a
// verdict: CONTRADICTED when any check disagrees, NOT VERIFIED when a
// side or probe was not checked, CONFIRMED when every check agrees.
func Judge(r *Result, probes []Probe, kernels []Kernel) *Verification {
	v := &Verification{}
	for _, k := range kernels {
		name := k.Side + " " + k.Dataplane
		if k.Skipped != "" {
			name += " (not verified: " + k.Skipped + ")"
		}
		v.Kernels = append(v.Kernels, name)
	}
	for ci := range len(r.Classes) + 2 {
		class, title := Control, "controls (paths that behave the same)"
		switch {
		case ci < len(r.Classes):
			class, title = ci, classTitle(r.Classes[ci])
		case ci == len(r.Classes)+1:
			class, title = Sampled, "paths drawn at random"
		}
		d := Verdict{Class: title}
		for pi, p := range probes {
			if p.Class != class {
				continue
			}
			for _, k := range kernels {
				d.Checks = append(d.Checks, check(p, pi, k))
			}
		}
		d.State, d.Reason = stateOf(d.Checks)
		if class < 0 && len(d.Checks) == 0 {
			continue
		}
		v.Verdicts = append(v.Verdicts, d)
	}
	return v
}

func check(p Probe, i int, k Kernel) Check {
	c := Check{Path: p.Path, Side: k.Side, Dataplane: k.Dataplane, Tracer: p.Outcome(k.Side)}
	switch {
	case k.Skipped != "":
		c.Why = k.Skipped
	case i >= len(k.Seen) || k.Seen[i] == nil:
		c.Why = "not sent"
		if i < len(k.Unsent) && k.Unsent[i] != "" {
			c.Why = k.Unsent[i]
		}
	default:
		c.Sent, c.Kernel = true, k.Seen[i]
		c.Agree, c.Why = Agrees(p.Path, c.Tracer, c.Kernel)
	}
	return c
}

// stateOf: CONTRADICTED when a sent probe disagrees; NOT VERIFIED when
// a kernel run sent none of the class's probes; CONFIRMED otherwise, with
// the probes not sent named in the reason.
func stateOf(checks []Check) (State, string) {
	sent := map[string]bool{}
	var runs, unsent []string
	for _, c := range checks {
		run := c.Side + " " + c.Dataplane
		if !slices.Contains(runs, run) {
			runs = append(runs, run)
		}
		if c.Sent && !c.Agree {
			return Contradicted, fmt.Sprintf("%s on %s: %s", c.Path, run, c.Why)
		}
		sent[run] = sent[run] || c.Sent
		if why := run + ": " + c.Why; !c.Sent && !slices.Contains(unsent, why) {
			unsent = append(unsent, why)
		}
	}
	if len(checks) == 0 {
		return NotVerified, "no probe"
	}
	for _, run := range runs {
		if !sent[run] {
			return NotVerified, strings.Join(unsent, "; ")
		}
	}
	if len(unsent) > 0 {
		return Confirmed, "not sent: " + strings.Join(unsent, "; ")
	}
	return Confirmed, ""
}
