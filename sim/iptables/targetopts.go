package iptables

// targetOptions lists, per target, the options the parser knows.
var targetOptions = map[string]map[string]optionSpec{
	"DNAT": {
		"--to-destination": {1, false, setNAT},
		"--random":         {0, false, func(r *Rule, _ string, _ bool, _ []string) error { nat(r).Random = true; return nil }},
		"--persistent":     {0, false, func(r *Rule, _ string, _ bool, _ []string) error { nat(r).Persistent = true; return nil }},
	},
	"SNAT": {
		"--to-source":    {1, false, setNAT},
		"--random":       {0, false, func(r *Rule, _ string, _ bool, _ []string) error { nat(r).Random = true; return nil }},
		"--random-fully": {0, false, setRandomFully},
		"--persistent":   {0, false, func(r *Rule, _ string, _ bool, _ []string) error { nat(r).Persistent = true; return nil }},
	},
	"MASQUERADE": {
		"--to-ports":     {1, false, setToPorts},
		"--random":       {0, false, nil},
		"--random-fully": {0, false, setRandomFully},
	},
	"REDIRECT": {
		"--to-ports": {1, false, setToPorts},
		"--random":   {0, false, nil},
	},
	"MARK": {
		"--set-xmark": {1, false, setMarkTarget},
		"--set-mark":  {1, false, setMarkTarget},
		"--and-mark":  {1, false, setMarkTarget},
		"--or-mark":   {1, false, setMarkTarget},
		"--xor-mark":  {1, false, setMarkTarget},
	},
	"REJECT": {
		"--reject-with": {1, false, func(r *Rule, _ string, _ bool, a []string) error {
			if r.RejectWith != "" {
				return errRepeated
			}
			r.RejectWith = a[0]
			return nonEmpty(a[0])
		}},
	},
	"LOG": {
		"--log-prefix": {1, false, nil}, "--log-level": {1, false, nil},
		"--log-tcp-sequence": {0, false, nil}, "--log-tcp-options": {0, false, nil},
		"--log-ip-options": {0, false, nil}, "--log-uid": {0, false, nil}, "--log-macdecode": {0, false, nil},
	},
}

func nat(r *Rule) *NATTarget {
	if r.NAT == nil {
		r.NAT = &NATTarget{}
	}
	return r.NAT
}

func setNAT(r *Rule, _ string, _ bool, a []string) error {
	n := nat(r)
	if n.To != "" {
		return errRepeated
	}
	ap, err := parseNATAddr(a[0])
	n.To, n.Addr = a[0], ap
	return err
}

func setRandomFully(r *Rule, _ string, _ bool, _ []string) error {
	r.RandomFully = true
	if r.Target == "SNAT" {
		nat(r).RandomFully = true
	}
	return nil
}

func setToPorts(r *Rule, _ string, _ bool, a []string) error {
	r.ToPorts = a[0]
	_, _, err := parsePortRange(dashToColon(a[0]))
	return err
}

// dashToColon turns the "1000-2000" range syntax of --to-ports into the
// "1000:2000" syntax parsePortRange reads.
func dashToColon(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '-' {
			return s[:i] + ":" + s[i+1:]
		}
	}
	return s
}

func setMarkTarget(r *Rule, opt string, _ bool, a []string) error {
	op := opt[2:]
	allowMask := op == "set-xmark" || op == "set-mark"
	if r.SetMark != nil {
		return errRepeated
	}
	v, m, err := parseMarkValue(a[0], allowMask)
	if err != nil {
		return err
	}
	r.SetMark = &MarkTarget{Op: op, Value: v, Mask: m}
	return nil
}
