package iptables

import (
	"fmt"
	"strconv"
	"strings"
)

// matchOptions lists, per match module, the options the parser knows.
var matchOptions = map[string]map[string]optionSpec{
	"comment":   {"--comment": {1, false, setComment}},
	"statistic": statisticOptions,
	"recent":    recentOptions,
	"addrtype":  addrTypeOptions,
	"mark":      {"--mark": {1, true, setMarkMatch}},
	"conntrack": conntrackOptions,
	"state":     {"--state": {1, true, setCTState}},
	"set":       setOptions,
	"nfacct":    {"--nfacct-name": {1, false, setNFAcct}},
	"multiport": {
		"--dports": {1, true, setMultiPort}, "--destination-ports": {1, true, setMultiPort},
		"--sports": {1, true, setMultiPort}, "--source-ports": {1, true, setMultiPort}, "--ports": {1, true, setMultiPort},
	},
	"icmp":    {"--icmp-type": {1, true, nil}},
	"icmp6":   {"--icmpv6-type": {1, true, nil}},
	"tcp":     portOptions(map[string]optionSpec{"--tcp-flags": {2, true, nil}, "--syn": {0, true, nil}, "--tcp-option": {1, true, nil}}),
	"udp":     portOptions(nil),
	"sctp":    portOptions(map[string]optionSpec{"--chunk-types": {2, true, nil}}),
	"dccp":    portOptions(nil),
	"udplite": portOptions(nil),
}

func portOptions(extra map[string]optionSpec) map[string]optionSpec {
	m := map[string]optionSpec{
		"--dport": {1, true, setDPort}, "--destination-port": {1, true, setDPort},
		"--sport": {1, true, setSPort}, "--source-port": {1, true, setSPort},
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func setDPort(r *Rule, opt string, neg bool, a []string) error {
	if r.DestPort.Set {
		return errRepeated
	}
	lo, hi, err := parsePortRange(a[0])
	r.DestPort = PortMatch{Set: true, Negated: neg, Lo: lo, Hi: hi}
	return err
}

func setSPort(r *Rule, opt string, neg bool, a []string) error {
	if r.SourcePort.Set {
		return errRepeated
	}
	lo, hi, err := parsePortRange(a[0])
	r.SourcePort = PortMatch{Set: true, Negated: neg, Lo: lo, Hi: hi}
	return err
}

func setComment(r *Rule, opt string, neg bool, a []string) error {
	if !r.HasComment {
		r.Comment, r.HasComment = a[0], true
	}
	r.Comments = append(r.Comments, a[0])
	return nil
}

func setNFAcct(r *Rule, opt string, neg bool, a []string) error {
	if r.NFAcctName != "" {
		return errRepeated
	}
	r.NFAcctName = a[0]
	return nonEmpty(a[0])
}

var statisticOptions = map[string]optionSpec{
	"--mode": {1, false, func(r *Rule, opt string, neg bool, a []string) error {
		if a[0] != "random" && a[0] != "nth" {
			return fmt.Errorf("unknown mode %q", a[0])
		}
		if statistic(r).Mode != "" {
			return errRepeated
		}
		statistic(r).Mode = a[0]
		return nil
	}},
	"--probability": {1, true, func(r *Rule, opt string, neg bool, a []string) error {
		p, err := parseProbability(a[0])
		s := statistic(r)
		if s.Probability != "" {
			return errRepeated
		}
		s.Probability, s.ProbabilityValue, s.Negated = a[0], p, neg
		return err
	}},
	"--every": {1, true, func(r *Rule, opt string, neg bool, a []string) error {
		n, err := strconv.ParseUint(a[0], 10, 32)
		if err != nil || n == 0 {
			return fmt.Errorf("bad --every %q", a[0])
		}
		s := statistic(r)
		if s.Every != 0 {
			return errRepeated
		}
		s.Every, s.Negated = n, neg
		return nil
	}},
	"--packet": {1, false, func(r *Rule, opt string, neg bool, a []string) error {
		n, err := strconv.ParseUint(a[0], 10, 32)
		statistic(r).Packet = n
		if err != nil {
			return fmt.Errorf("bad --packet %q", a[0])
		}
		return nil
	}},
}

func statistic(r *Rule) *StatisticMatch {
	if r.Statistic == nil {
		r.Statistic = &StatisticMatch{}
	}
	return r.Statistic
}

func recent(r *Rule) *RecentMatch {
	if r.Recent == nil {
		r.Recent = &RecentMatch{Name: "DEFAULT"}
	}
	return r.Recent
}

// recentFlag builds the spec of a flag option of -m recent; set picks the
// field it sets. Negation of a command negates the whole match.
func recentFlag(negatable bool, set func(m *RecentMatch)) optionSpec {
	return optionSpec{0, negatable, func(r *Rule, opt string, neg bool, a []string) error {
		m := recent(r)
		set(m)
		m.Negated = m.Negated || neg
		return nil
	}}
}

func recentNumber(set func(m *RecentMatch, n uint64)) optionSpec {
	return optionSpec{1, false, func(r *Rule, opt string, neg bool, a []string) error {
		n, err := strconv.ParseUint(a[0], 10, 32)
		if err != nil {
			return fmt.Errorf("bad number %q", a[0])
		}
		set(recent(r), n)
		return nil
	}}
}

var recentOptions = map[string]optionSpec{
	"--set":      recentFlag(true, func(m *RecentMatch) { m.Set = true }),
	"--rcheck":   recentFlag(true, func(m *RecentMatch) { m.Check = true }),
	"--update":   recentFlag(true, func(m *RecentMatch) { m.Update = true }),
	"--remove":   recentFlag(true, func(m *RecentMatch) { m.Remove = true }),
	"--reap":     recentFlag(false, func(m *RecentMatch) { m.Reap = true }),
	"--rttl":     recentFlag(false, func(m *RecentMatch) { m.TTL = true }),
	"--rsource":  recentFlag(false, func(m *RecentMatch) { m.Source = true }),
	"--rdest":    recentFlag(false, func(m *RecentMatch) { m.Dest = true }),
	"--seconds":  recentNumber(func(m *RecentMatch, n uint64) { m.Seconds = n }),
	"--hitcount": recentNumber(func(m *RecentMatch, n uint64) { m.HitCount = n }),
	"--name": {1, false, func(r *Rule, opt string, neg bool, a []string) error {
		if r.Recent != nil && r.Recent.Name != "DEFAULT" {
			return errRepeated
		}
		recent(r).Name = a[0]
		return nonEmpty(a[0])
	}},
	"--mask": {1, false, func(r *Rule, opt string, neg bool, a []string) error {
		recent(r).Mask = a[0]
		_, err := ParsePrefix(a[0])
		return err
	}},
}

func addrType(r *Rule) *AddrTypeMatch {
	if r.AddrType == nil {
		r.AddrType = &AddrTypeMatch{}
	}
	return r.AddrType
}

var addrTypeOptions = map[string]optionSpec{
	"--src-type": {1, true, func(r *Rule, opt string, neg bool, a []string) error {
		m := addrType(r)
		if m.SrcType != "" {
			return errRepeated
		}
		m.SrcType, m.SrcNegated = strings.ToUpper(a[0]), neg
		return nonEmpty(a[0])
	}},
	"--dst-type": {1, true, func(r *Rule, opt string, neg bool, a []string) error {
		m := addrType(r)
		if m.DstType != "" {
			return errRepeated
		}
		m.DstType, m.DstNegated = strings.ToUpper(a[0]), neg
		return nonEmpty(a[0])
	}},
	"--limit-iface-in": {0, false, func(r *Rule, opt string, neg bool, a []string) error {
		addrType(r).LimitIfaceIn = true
		return nil
	}},
	"--limit-iface-out": {0, false, func(r *Rule, opt string, neg bool, a []string) error {
		addrType(r).LimitIfaceOut = true
		return nil
	}},
}

func setMarkMatch(r *Rule, opt string, neg bool, a []string) error {
	if r.Mark != nil {
		return errRepeated
	}
	v, m, err := parseMarkValue(a[0], true)
	r.Mark = &MarkMatch{Negated: neg, Value: v, Mask: m}
	return err
}

// ctStates are the states conntrack --ctstate accepts.
var ctStates = map[string]bool{
	"INVALID": true, "NEW": true, "ESTABLISHED": true, "RELATED": true,
	"UNTRACKED": true, "SNAT": true, "DNAT": true,
}

func setCTState(r *Rule, opt string, neg bool, a []string) error {
	module := "conntrack"
	if opt == "--state" {
		module = "state"
	}
	if r.CTState != nil {
		return errRepeated
	}
	states := strings.Split(strings.ToUpper(a[0]), ",")
	for _, s := range states {
		if !ctStates[s] {
			return fmt.Errorf("unknown conntrack state %q", s)
		}
	}
	r.CTState = &CTStateMatch{Module: module, Negated: neg, States: states}
	return nil
}

var conntrackOptions = map[string]optionSpec{
	"--ctstate":       {1, true, setCTState},
	"--ctproto":       {1, true, nil},
	"--ctorigsrc":     {1, true, nil},
	"--ctorigdst":     {1, true, nil},
	"--ctreplsrc":     {1, true, nil},
	"--ctrepldst":     {1, true, nil},
	"--ctorigsrcport": {1, true, nil},
	"--ctorigdstport": {1, true, nil},
	"--ctreplsrcport": {1, true, nil},
	"--ctrepldstport": {1, true, nil},
	"--ctstatus":      {1, true, nil},
	"--ctexpire":      {1, true, nil},
	"--ctdir":         {1, false, nil},
}

var setOptions = map[string]optionSpec{
	"--match-set": {2, true, func(r *Rule, opt string, neg bool, a []string) error {
		flags := strings.Split(a[1], ",")
		for _, f := range flags {
			if f != "src" && f != "dst" {
				return fmt.Errorf("bad set flag %q", f)
			}
		}
		m := &SetMatch{Negated: neg, Name: a[0], Flags: flags}
		if r.MatchSet == nil {
			r.MatchSet = m
		}
		r.MatchSets = append(r.MatchSets, m)
		return nonEmpty(a[0])
	}},
	"--return-nomatch":     {0, false, nil},
	"--update-counters":    {0, true, nil},
	"--update-subcounters": {0, true, nil},
	"--packets-eq":         {1, true, nil},
	"--packets-lt":         {1, false, nil},
	"--packets-gt":         {1, false, nil},
	"--bytes-eq":           {1, true, nil},
	"--bytes-lt":           {1, false, nil},
	"--bytes-gt":           {1, false, nil},
}

// setMultiPort parses "-m multiport --dports 80,443,30000:30010".
func setMultiPort(r *Rule, opt string, neg bool, a []string) error {
	m := MultiPortMatch{Negated: neg, Side: "both"}
	switch opt {
	case "--dports", "--destination-ports":
		m.Side = "dst"
	case "--sports", "--source-ports":
		m.Side = "src"
	}
	for _, w := range strings.Split(a[0], ",") {
		lo, hi, err := parsePortRange(w)
		if err != nil {
			return err
		}
		m.Ranges = append(m.Ranges, [2]uint16{lo, hi})
	}
	if len(m.Ranges) > 15 {
		return fmt.Errorf("too many ports specified (%d, at most 15)", len(m.Ranges))
	}
	r.MultiPorts = append(r.MultiPorts, m)
	return nil
}
