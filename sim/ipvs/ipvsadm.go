package ipvs

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// Table is the IPVS virtual servers of an `ipvsadm -Sn` (or
// `ipvsadm-save -n`) output, in order.
type Table struct {
	Services []*Service
}

// Service is one virtual server ("-A").
type Service struct {
	Protocol   string         // "tcp", "udp", "sctp"; "" for a firewall-mark service
	Addr       netip.AddrPort // invalid for a firewall-mark service
	FWMark     uint32         // -f
	Scheduler  string         // -s: rr, wrr, lc, wlc, sh, mh, ...
	Persistent int            // -p seconds; 0 when not persistent
	Netmask    string         // -M, for persistence
	Flags      string         // -b: scheduler flags (sh-port, sh-fallback, ...)
	Dests      []Dest         // in the kernel's list order, as ipvsadm prints them
	Line       int
}

// Dest is one real server ("-a").
type Dest struct {
	Addr   netip.AddrPort
	Method string // "masq" (-m), "gate" (-g), "ipip" (-i)
	Weight int    // -w
	Upper  int    // -x
	Lower  int    // -y
	Line   int
}

// Key names a service as ipvsadm does: "-t 10.96.0.1:443" or "-f 100".
func (s *Service) Key() string {
	if s.Protocol == "" {
		return fmt.Sprintf("-f %d", s.FWMark)
	}
	return protoOption[s.Protocol] + " " + s.Addr.String()
}

var protoOption = map[string]string{"tcp": "-t", "udp": "-u", "sctp": "--sctp-service"}

// ParseIPVSAdm reads `ipvsadm -Sn` output (the same as `ipvsadm-save -n`).
func ParseIPVSAdm(r io.Reader) (*Table, error) {
	t := &Table{}
	index := map[string]*Service{}
	err := eachLine(r, 1<<20, "ipvsadm", func(f []string, line int) error { return t.parseLine(f, line, index) })
	if err != nil {
		return nil, err
	}
	return t, nil
}

// eachLine calls parse with the fields and number of every line of r that
// is not empty or a comment; maxLine bounds a line's length. Errors name
// the tool whose output r is and the line.
func eachLine(r io.Reader, maxLine int, tool string, parse func(f []string, line int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if err := parse(f, line); err != nil {
			return fmt.Errorf("%s line %d: %w", tool, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s output: %w", tool, err)
	}
	return nil
}

func (t *Table) parseLine(f []string, line int, index map[string]*Service) error {
	if f[0] != "-A" && f[0] != "-a" {
		return fmt.Errorf("want -A (virtual server) or -a (real server), got %q", f[0])
	}
	svc, rest, err := parseServiceAddr(f[1:])
	if err != nil {
		return err
	}
	svc.Line = line
	key := svc.Key()
	if f[0] == "-A" {
		if index[key] != nil {
			return fmt.Errorf("virtual server %s given twice", key)
		}
		if err := svc.parseOptions(rest); err != nil {
			return fmt.Errorf("virtual server %s: %w", key, err)
		}
		index[key] = svc
		t.Services = append(t.Services, svc)
		return nil
	}
	s := index[key]
	if s == nil {
		return fmt.Errorf("real server for %s before its virtual server", key)
	}
	d, err := parseDest(rest)
	if err != nil {
		return fmt.Errorf("real server of %s: %w", key, err)
	}
	for _, o := range s.Dests {
		if o.Addr == d.Addr {
			return fmt.Errorf("real server %s of %s given twice (lines %d and %d; ipvsadm: destination already exists)", d.Addr, key, o.Line, line)
		}
	}
	d.Line = line
	s.Dests = append(s.Dests, d)
	return nil
}

// parseServiceAddr reads "-t|-u|--sctp-service ADDR:PORT" or "-f MARK".
func parseServiceAddr(f []string) (*Service, []string, error) {
	if len(f) < 2 {
		return nil, nil, fmt.Errorf("want a protocol option and address:port")
	}
	s := &Service{}
	switch f[0] {
	case "-t", "--tcp-service":
		s.Protocol = "tcp"
	case "-u", "--udp-service":
		s.Protocol = "udp"
	case "--sctp-service":
		s.Protocol = "sctp"
	case "-f", "--fwmark-service":
		m, err := strconv.ParseUint(f[1], 0, 32)
		if err != nil {
			return nil, nil, fmt.Errorf("firewall mark %q: %w", f[1], err)
		}
		s.FWMark = uint32(m)
		return s, f[2:], nil
	default:
		return nil, nil, fmt.Errorf("unknown service option %q", f[0])
	}
	ap, err := netip.ParseAddrPort(f[1])
	if err != nil {
		return nil, nil, fmt.Errorf("virtual server %q: want address:port (ipvsadm -n prints numbers)", f[1])
	}
	s.Addr = ap
	return s, f[2:], nil
}

func (s *Service) parseOptions(f []string) error {
	for i := 0; i < len(f); i++ {
		arg := func() (string, error) {
			if i+1 >= len(f) {
				return "", fmt.Errorf("option %s needs a value", f[i])
			}
			i++
			return f[i], nil
		}
		var err error
		switch f[i] {
		case "-s", "--scheduler":
			s.Scheduler, err = arg()
		case "-p", "--persistent":
			s.Persistent = 300
			if i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") {
				i++
				if s.Persistent, err = strconv.Atoi(f[i]); err != nil || s.Persistent < 1 {
					return fmt.Errorf("option -p: timeout %q is not a number of seconds, 1 or more", f[i])
				}
			}
		case "-M", "--netmask":
			s.Netmask, err = arg()
		case "-b", "--sched-flags":
			s.Flags, err = arg()
		default:
			return fmt.Errorf("unknown option %q", f[i])
		}
		if err != nil {
			return err
		}
	}
	if s.Scheduler == "" {
		s.Scheduler = "wlc" // ipvsadm's default
	}
	return nil
}

// maxWeight is the largest real-server weight ipvsadm accepts.
const maxWeight = 65535

func parseDest(f []string) (Dest, error) {
	d := Dest{Method: "gate", Weight: 1}
	for i := 0; i < len(f); i++ {
		// num reads the option's value in lo..hi, as ipvsadm's
		// string_to_number does (weight 0..65535, thresholds 0..INT_MAX).
		num := func(lo, hi int) (int, error) {
			if i+1 >= len(f) {
				return 0, fmt.Errorf("option %s needs a value", f[i])
			}
			i++
			n, err := strconv.Atoi(f[i])
			if err != nil || n < lo || n > hi {
				return 0, fmt.Errorf("option %s: %q is not a number in %d..%d", f[i-1], f[i], lo, hi)
			}
			return n, nil
		}
		var err error
		switch f[i] {
		case "-r", "--real-server":
			if i+1 >= len(f) {
				return d, fmt.Errorf("-r needs address:port")
			}
			i++
			if d.Addr, err = netip.ParseAddrPort(f[i]); err != nil {
				return d, fmt.Errorf("real server %q: want address:port", f[i])
			}
		case "-m", "--masquerading":
			d.Method = "masq"
		case "-g", "--gatewaying":
			d.Method = "gate"
		case "-i", "--ipip":
			d.Method = "ipip"
		case "-w", "--weight":
			d.Weight, err = num(0, maxWeight)
		case "-x", "--u-threshold":
			d.Upper, err = num(0, math.MaxInt32)
		case "-y", "--l-threshold":
			d.Lower, err = num(0, math.MaxInt32)
		default:
			return d, fmt.Errorf("unknown option %q", f[i])
		}
		if err != nil {
			return d, err
		}
	}
	if !d.Addr.IsValid() {
		return d, fmt.Errorf("no -r address:port")
	}
	return d, nil
}

// WriteTo prints t as `ipvsadm -Sn` does, so that ParseIPVSAdm reads it
// back the same.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	for _, s := range t.Services {
		b.WriteString("-A " + s.Key() + " -s " + s.Scheduler)
		if s.Flags != "" {
			b.WriteString(" -b " + s.Flags)
		}
		if s.Persistent > 0 {
			fmt.Fprintf(&b, " -p %d", s.Persistent)
		}
		if s.Netmask != "" {
			b.WriteString(" -M " + s.Netmask)
		}
		b.WriteByte('\n')
		for _, d := range s.Dests {
			method := map[string]string{"masq": "-m", "gate": "-g", "ipip": "-i"}[d.Method]
			fmt.Fprintf(&b, "-a %s -r %s %s -w %d", s.Key(), d.Addr, method, d.Weight)
			if d.Upper != 0 {
				fmt.Fprintf(&b, " -x %d", d.Upper)
			}
			if d.Lower != 0 {
				fmt.Fprintf(&b, " -y %d", d.Lower)
			}
			b.WriteByte('\n')
		}
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
