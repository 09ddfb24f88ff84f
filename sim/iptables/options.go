package iptables

import (
	"errors"
	"fmt"
	"strings"
)

// optionSpec describes one option: how many arguments it takes, whether it
// may be negated, and how it fills the Rule. A nil apply keeps the option as
// an UnknownMatch (the parser knows its arity but not its meaning).
type optionSpec struct {
	args      int
	negatable bool
	apply     func(r *Rule, opt string, neg bool, args []string) error
}

// genericOptions are the options of iptables itself.
var genericOptions = map[string]optionSpec{}

func init() {
	src := optionSpec{1, true, func(r *Rule, opt string, neg bool, a []string) error {
		return once(r.Source.Set, func() error { return setAddr(&r.Source, neg, a[0]) })
	}}
	dst := optionSpec{1, true, func(r *Rule, opt string, neg bool, a []string) error {
		return once(r.Destination.Set, func() error { return setAddr(&r.Destination, neg, a[0]) })
	}}
	in := optionSpec{1, true, func(r *Rule, opt string, neg bool, a []string) error {
		return once(r.InIface.Set, func() error {
			r.InIface = IfaceMatch{Set: true, Negated: neg, Name: a[0]}
			return nil
		})
	}}
	out := optionSpec{1, true, func(r *Rule, opt string, neg bool, a []string) error {
		return once(r.OutIface.Set, func() error {
			r.OutIface = IfaceMatch{Set: true, Negated: neg, Name: a[0]}
			return nil
		})
	}}
	proto := optionSpec{1, true, func(r *Rule, opt string, neg bool, a []string) error {
		return once(r.Protocol.Set, func() error {
			r.Protocol = ProtoMatch{Set: true, Negated: neg, Name: protocolName(a[0])}
			return nil
		})
	}}
	match := optionSpec{1, false, addModule}
	jump := optionSpec{1, false, setTarget}
	counters := optionSpec{2, false, func(r *Rule, opt string, neg bool, a []string) error {
		c, err := countersFrom(a[0], a[1])
		r.Counters = &c
		return err
	}}
	family := optionSpec{0, false, func(*Rule, string, bool, []string) error { return nil }}
	for _, names := range []struct {
		spec  optionSpec
		names []string
	}{
		{src, []string{"-s", "--source", "--src"}},
		{dst, []string{"-d", "--destination", "--dst"}},
		{in, []string{"-i", "--in-interface"}},
		{out, []string{"-o", "--out-interface"}},
		{proto, []string{"-p", "--protocol"}},
		{match, []string{"-m", "--match"}},
		{jump, []string{"-j", "--jump", "-g", "--goto"}},
		{counters, []string{"-c", "--set-counters"}},
		{optionSpec{0, true, nil}, []string{"-f", "--fragment"}},
		{family, []string{"-4", "--ipv4", "-6", "--ipv6"}},
	} {
		for _, n := range names.names {
			genericOptions[n] = names.spec
		}
	}
}

// errRepeated is iptables' "multiple -p flags not allowed" and the like.
var errRepeated = errors.New("given more than once")

// once runs set unless the option was already given.
func once(already bool, set func() error) error {
	if already {
		return errRepeated
	}
	return set()
}

// addModule handles "-m MODULE". A module the parser does not know is kept
// as an UnknownMatch so a reader can tell the rule has a match it cannot
// decide.
func addModule(r *Rule, opt string, neg bool, a []string) error {
	m := a[0]
	if m == "" {
		return errors.New("empty module name")
	}
	r.Modules = append(r.Modules, m)
	// A module loaded again is a second instance: iptables matches both.
	switch {
	case m == "mark" && r.Mark != nil:
		r.EarlierMarks, r.Mark = append(r.EarlierMarks, *r.Mark), nil
	case m == "addrtype" && r.AddrType != nil:
		r.EarlierAddrTypes, r.AddrType = append(r.EarlierAddrTypes, *r.AddrType), nil
	case (m == "conntrack" || m == "state") && r.CTState != nil:
		r.EarlierCTStates, r.CTState = append(r.EarlierCTStates, *r.CTState), nil
	}
	if _, known := matchOptions[m]; !known {
		r.Unknown = append(r.Unknown, UnknownMatch{Module: m})
	}
	return nil
}

func setTarget(r *Rule, opt string, neg bool, a []string) error {
	if r.Target != "" {
		return fmt.Errorf("second target %q after %q", a[0], r.Target)
	}
	if a[0] == "" || strings.HasPrefix(a[0], "-") {
		return fmt.Errorf("bad target %q", a[0])
	}
	r.Target = a[0]
	r.Goto = opt == "-g" || opt == "--goto"
	return nil
}

// protocolNumbers maps the protocol numbers iptables-save may print to names.
var protocolNumbers = map[string]string{
	"0": "all", "1": "icmp", "6": "tcp", "17": "udp", "58": "ipv6-icmp", "132": "sctp", "136": "udplite",
}

func protocolName(s string) string {
	s = strings.ToLower(s)
	if n, ok := protocolNumbers[s]; ok {
		return n
	}
	if s == "icmpv6" {
		return "ipv6-icmp"
	}
	return s
}
