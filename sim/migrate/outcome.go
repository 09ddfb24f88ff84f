package migrate

import (
	"fmt"
	"math"
	"strings"

	"github.com/svclab/svclab/sim/route"
)

// Handling is what the rules do with a connection, in one word.
type Handling string

// The handlings.
const (
	Served   Handling = "served"   // DNATed to endpoints the filters let through
	Dropped  Handling = "dropped"  // a DROP verdict
	Rejected Handling = "rejected" // a REJECT verdict (the client sees a refusal)
	// Untouched: no service rule matches; the packet goes on to the node
	// or its routes unchanged.
	Untouched Handling = "not handled by kube-proxy"
)

// Reached is one endpoint of an outcome.
type Reached struct {
	Endpoint    string  `json:"endpoint"`
	Probability float64 `json:"probability"`
	// Sees is the source address the endpoint sees: "client" or "node"
	// (masqueraded).
	Sees string `json:"sees"`
}

// Outcome is one side's answer for one path.
type Outcome struct {
	Handling  Handling  `json:"handling"`
	Endpoints []Reached `json:"endpoints,omitempty"`
	// Affinity is true when the path meets ClientIP affinity (xt_recent,
	// an nftables affinity set) or IPVS persistence.
	Affinity bool `json:"affinity,omitempty"`
}

// outcomeOf reads a route answer.
func outcomeOf(a route.Answer, q route.Query) Outcome {
	o := Outcome{Handling: Served}
	switch v := strings.ToUpper(a.Verdict); {
	case !a.Dropped:
	case v == "DROP":
		o.Handling = Dropped
	case v == "REJECT":
		o.Handling = Rejected
	case a.Service == "":
		o.Handling = Untouched
	default:
		o.Handling = Dropped
	}
	for _, e := range a.Endpoints {
		sees := "client"
		if q.Src.IsValid() && e.Seen != q.Src {
			sees = "node"
		}
		o.Endpoints = append(o.Endpoints, Reached{Endpoint: e.Addr.String(), Probability: e.Probability, Sees: sees})
	}
	for _, n := range a.Notes {
		if isAffinityNote(n) {
			o.Affinity = true
		}
	}
	return o
}

// isAffinityNote recognises the tracers' notes on ClientIP affinity
// (iptables, nftables) and IPVS persistence.
func isAffinityNote(n string) bool {
	return strings.HasPrefix(n, "ClientIP affinity") || strings.HasPrefix(n, "persistent:")
}

// String is the outcome in one line: "served: 10.0.0.1:80 (0.5, sees
// client), …", "rejected".
func (o Outcome) String() string {
	if o.Handling != Served {
		return string(o.Handling)
	}
	parts := make([]string, len(o.Endpoints))
	for i, e := range o.Endpoints {
		parts[i] = fmt.Sprintf("%s p=%.4g sees %s", e.Endpoint, e.Probability, e.Sees)
	}
	s := "served by " + strings.Join(parts, ", ")
	if o.Affinity {
		s += ", ClientIP affinity"
	}
	return s
}

// Change names what differs between two outcomes: the handling, the
// endpoint set, their probabilities, the source they see, affinity.
func Change(a, b Outcome) string {
	switch {
	case a.Handling != b.Handling:
		return fmt.Sprintf("%s → %s", a.Handling, b.Handling)
	case !sameEndpoints(a, b):
		return fmt.Sprintf("endpoints: %s → %s", endpointScope(a, b), endpointScope(b, a))
	case !sameProbabilities(a, b):
		return "probabilities differ"
	case !sameSees(a, b):
		return fmt.Sprintf("source seen: %s → %s", sees(a), sees(b))
	case a.Affinity != b.Affinity:
		return fmt.Sprintf("ClientIP affinity: %v → %v", a.Affinity, b.Affinity)
	}
	return ""
}

func sameEndpoints(a, b Outcome) bool {
	if len(a.Endpoints) != len(b.Endpoints) {
		return false
	}
	for i := range a.Endpoints {
		if a.Endpoints[i].Endpoint != b.Endpoints[i].Endpoint {
			return false
		}
	}
	return true
}

// probabilityTolerance is the relative difference below which two
// probabilities are the same: iptables writes each statistic probability
// with 10 decimals, so its cascade's products differ from 1/n by about
// 1e-9 relative; a real difference (another split) is far larger.
const probabilityTolerance = 1e-4

func sameProbabilities(a, b Outcome) bool {
	for i := range a.Endpoints {
		x, y := a.Endpoints[i].Probability, b.Endpoints[i].Probability
		if math.Abs(x-y) > probabilityTolerance*math.Max(x, y) {
			return false
		}
	}
	return true
}

func sameSees(a, b Outcome) bool {
	for i := range a.Endpoints {
		if a.Endpoints[i].Sees != b.Endpoints[i].Sees {
			return false
		}
	}
	return true
}

// endpointScope says how a's endpoints relate to b's: fewer, more, other.
func endpointScope(a, b Outcome) string {
	in := map[string]bool{}
	for _, e := range b.Endpoints {
		in[e.Endpoint] = true
	}
	n := 0
	for _, e := range a.Endpoints {
		if in[e.Endpoint] {
			n++
		}
	}
	switch {
	case n == len(a.Endpoints) && len(a.Endpoints) < len(b.Endpoints):
		return fmt.Sprintf("a subset (%d)", len(a.Endpoints))
	case n == len(b.Endpoints) && len(a.Endpoints) > len(b.Endpoints):
		return fmt.Sprintf("a superset (%d)", len(a.Endpoints))
	}
	return fmt.Sprintf("%d endpoints", len(a.Endpoints))
}

func sees(o Outcome) string {
	set := map[string]bool{}
	for _, e := range o.Endpoints {
		set[e.Sees] = true
	}
	switch {
	case len(set) > 1:
		return "client or node"
	case set["node"]:
		return "node"
	}
	return "client"
}
