package ipvs

import (
	"bufio"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// ipvsTable is a fake IPVS table filled by replaying `ipvsadm -R` input
// under ipvsadm's own rules (ipvsadm(8) and ipvsadm.c 1.31: parse_options,
// parse_service, parse_sched_flags, generic_opt_check, process_options),
// plus the kernel's refusals (duplicate service or destination, a
// destination for a missing service). It validates; it never skips.
type ipvsTable struct {
	services map[string]*virtualServer // "tcp 172.30.0.43:80"
	order    []string
}

type virtualServer struct {
	scheduler string
	timeout   int    // persistence timeout, 0 if not persistent
	flags     string // -b argument
	dests     map[string]realServer
	destOrder []string
}

type realServer struct {
	forward string // m, g or i
	weight  int
}

// ipvsadm command line of one restore line.
type ipvsCommand struct {
	cmd, proto, service, scheduler, flags, server, forward string
	persistent                                             bool
	timeout, weight                                        int
}

func replayIPVSAdm(payload string) (*ipvsTable, error) {
	t := &ipvsTable{services: map[string]*virtualServer{}}
	sc := bufio.NewScanner(strings.NewReader(payload))
	for n := 1; sc.Scan(); n++ {
		args := strings.Fields(sc.Text())
		if len(args) > 0 && args[0] == "ipvsadm" {
			args = args[1:]
		}
		if len(args) == 0 {
			continue // ipvsadm -R skips lines without options
		}
		c, err := parseIPVSCommand(args)
		if err == nil {
			err = t.apply(c)
		}
		if err != nil {
			return nil, fmt.Errorf("ipvsadm -R line %d %q: %w", n, sc.Text(), err)
		}
	}
	return t, sc.Err()
}

// parseIPVSCommand parses one line like ipvsadm's popt table does, for the
// commands and options a restore of services and servers can use.
func parseIPVSCommand(args []string) (ipvsCommand, error) {
	c := ipvsCommand{weight: 1, forward: "g"} // ipvsadm defaults: weight 1, direct routing
	switch args[0] {
	case "-A", "--add-service":
		c.cmd = "A"
	case "-a", "--add-server":
		c.cmd = "a"
	default:
		return c, fmt.Errorf("first option %q is not -A or -a", args[0])
	}
	seen := map[string]bool{}
	for i := 1; i < len(args); i++ {
		opt := canonicalOption(args[i])
		if seen[opt] || (seen["service"] && isServiceOption(opt)) || (seen["forward"] && isForward(opt)) {
			return c, fmt.Errorf("multiple %q options specified", args[i])
		}
		seen[opt] = true
		if isServiceOption(opt) {
			seen["service"] = true
		}
		if isForward(opt) {
			seen["forward"] = true
		}
		arg := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s needs an argument", args[i])
			}
			i++
			return args[i], nil
		}
		var err error
		switch opt {
		case "-t", "-u", "--sctp-service":
			c.proto = map[string]string{"-t": "tcp", "-u": "udp", "--sctp-service": "sctp"}[opt]
			c.service, err = arg()
		case "-s":
			c.scheduler, err = arg()
		case "-b":
			c.flags, err = arg()
		case "-r":
			c.server, err = arg()
		case "-w":
			var w string
			if w, err = arg(); err == nil {
				c.weight, err = boundedInt(w, 0, 65535, "weight")
			}
		case "-p":
			c.persistent, c.timeout = true, 300 // IPVS_SVC_PERSISTENT_TIMEOUT
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				c.timeout, err = boundedInt(args[i], 1, 86400*31, "timeout")
			}
		case "-m", "-g", "-i":
			c.forward = opt[1:]
		default:
			return c, fmt.Errorf("invalid option %q", args[i])
		}
		if err != nil {
			return c, err
		}
	}
	return c, checkCommandOptions(c, seen)
}

func canonicalOption(o string) string {
	long := map[string]string{
		"--tcp-service": "-t", "--udp-service": "-u", "--scheduler": "-s", "--sched-flags": "-b",
		"--real-server": "-r", "--weight": "-w", "--persistent": "-p",
		"--masquerading": "-m", "--gatewaying": "-g", "--ipip": "-i",
	}
	if s, ok := long[o]; ok {
		return s
	}
	return o
}

func isServiceOption(o string) bool { return o == "-t" || o == "-u" || o == "--sctp-service" }
func isForward(o string) bool       { return o == "-m" || o == "-g" || o == "-i" }

func boundedInt(s string, lo, hi int, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("illegal %s %q (want %d..%d)", what, s, lo, hi)
	}
	return n, nil
}

// checkCommandOptions applies generic_opt_check's table for -A and -a and
// the checks of process_options and parse_sched_flags.
func checkCommandOptions(c ipvsCommand, seen map[string]bool) error {
	if !seen["service"] {
		return fmt.Errorf("you need to supply the 'service-address' option")
	}
	if c.cmd == "A" {
		if seen["-r"] || seen["-w"] || seen["forward"] {
			return fmt.Errorf("illegal real-server option with -A")
		}
		if c.scheduler == "" {
			return fmt.Errorf("no -s: ipvsadm would default to wlc, not kube-proxy's scheduler")
		}
		if !schedulers[c.scheduler] {
			return fmt.Errorf("unknown scheduler %q", c.scheduler)
		}
		return checkSchedFlags(c.scheduler, c.flags)
	}
	if seen["-s"] || seen["-p"] || seen["-b"] {
		return fmt.Errorf("illegal service option with -a")
	}
	if !seen["-r"] {
		return fmt.Errorf("you need to supply the 'real-server' option for -a")
	}
	return nil
}

func checkSchedFlags(sched, flags string) error {
	if flags == "" {
		return nil
	}
	for _, f := range strings.Split(flags, ",") {
		switch {
		case f == "flag-1" || f == "flag-2" || f == "flag-3":
		case (f == "sh-fallback" || f == "sh-port") && sched == "sh":
		case (f == "mh-fallback" || f == "mh-port") && sched == "mh":
		default:
			return fmt.Errorf("invalid or incompatible scheduler flag %q for %s", f, sched)
		}
	}
	return nil
}

// apply runs the command against the table as the kernel would.
func (t *ipvsTable) apply(c ipvsCommand) error {
	svcAddr, err := parseIPVSAddress(c.service)
	if err != nil {
		return fmt.Errorf("virtual server: %w", err)
	}
	key := c.proto + " " + svcAddr.String()
	if c.cmd == "A" {
		if svcAddr.Port() == 0 && !c.persistent {
			return fmt.Errorf("zero port specified for non-persistent service")
		}
		if t.services[key] != nil {
			return fmt.Errorf("service %s already exists", key)
		}
		t.services[key] = &virtualServer{scheduler: c.scheduler, timeout: c.timeout, flags: c.flags, dests: map[string]realServer{}}
		t.order = append(t.order, key)
		return nil
	}
	vs := t.services[key]
	if vs == nil {
		return fmt.Errorf("service %s not defined", key)
	}
	dst, err := parseIPVSAddress(c.server)
	if err != nil {
		return fmt.Errorf("real server: %w", err)
	}
	if dst.Addr().Is4() != svcAddr.Addr().Is4() && c.forward != "i" {
		return fmt.Errorf("different address family is allowed only for tunneling servers")
	}
	if c.forward != "m" || dst.Port() == 0 {
		dst = netip.AddrPortFrom(dst.Addr(), svcAddr.Port()) // -g/-i force the service port
	}
	if _, dup := vs.dests[dst.String()]; dup {
		return fmt.Errorf("destination %s already exists in %s", dst, key)
	}
	vs.dests[dst.String()] = realServer{forward: c.forward, weight: c.weight}
	vs.destOrder = append(vs.destOrder, dst.String())
	return nil
}

// parseIPVSAddress accepts ipvsadm's numeric host[:port] and [v6]:port.
func parseIPVSAddress(s string) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap, nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.AddrPortFrom(a, 0), nil
	}
	return netip.AddrPort{}, fmt.Errorf("illegal address[:port] %q", s)
}

// realServerCount sums the destinations of all virtual servers.
func (t *ipvsTable) realServerCount() int {
	n := 0
	for _, vs := range t.services {
		n += len(vs.dests)
	}
	return n
}
