package iptables

import "errors"

// checkRule applies the checks iptables' extensions make once all options
// are read (their final_check callbacks), so that a rule the parser accepts
// is one iptables would accept.
func checkRule(r *Rule) error {
	if s := r.Statistic; s != nil {
		if err := checkStatistic(s); err != nil {
			return err
		}
	}
	if m := r.Recent; m != nil {
		if err := checkRecent(m); err != nil {
			return err
		}
	}
	if a := r.AddrType; a != nil && a.SrcType == "" && a.DstType == "" {
		return errors.New("addrtype: you must specify --src-type or --dst-type")
	}
	switch r.Target {
	case "DNAT", "SNAT":
		if r.NAT == nil || r.NAT.To == "" {
			return errors.New(r.Target + ": a --to-destination/--to-source address is required")
		}
	case "MARK":
		if r.SetMark == nil {
			return errors.New("MARK: one of --set-xmark, --set-mark, --and-mark, --or-mark, --xor-mark is required")
		}
	}
	return nil
}

func checkStatistic(s *StatisticMatch) error {
	switch s.Mode {
	case "random":
		if s.Probability == "" || s.Every != 0 || s.Packet != 0 {
			return errors.New("statistic: random mode takes --probability (only)")
		}
	case "nth":
		if s.Every == 0 || s.Probability != "" {
			return errors.New("statistic: nth mode takes --every (and --packet)")
		}
		if s.Packet >= s.Every {
			return errors.New("statistic: --packet must be smaller than --every")
		}
	default:
		return errors.New("statistic: --mode random or --mode nth is required")
	}
	return nil
}

func checkRecent(m *RecentMatch) error {
	n := 0
	for _, on := range []bool{m.Set, m.Check, m.Update, m.Remove} {
		if on {
			n++
		}
	}
	if n != 1 {
		return errors.New("recent: exactly one of --set, --rcheck, --update or --remove is required")
	}
	if m.Source && m.Dest {
		return errors.New("recent: --rsource and --rdest are exclusive")
	}
	return nil
}
