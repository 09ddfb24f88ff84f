package main

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/trace"
)

func init() {
	register(&command{name: "trace", summary: "walk one packet through a rule dump: path, endpoints, probabilities", usage: traceUsage, run: runTrace})
	inputErrors = append(inputErrors, func(err error) bool {
		var de *analyze.DumpError // a malformed dump (trace, analyze, verify-trace)
		return errors.As(err, &de)
	})
}

const traceUsage = `Usage: svclab trace --dump FILE --dst IP:PORT [options]

Walks the first packet of a connection through a rule dump, in userspace:
iptables-save or ip6tables-save output (or kube-proxy's iptables-restore
payload), nft list ruleset output (text or -j JSON, or kube-proxy's nft
script), or ipvsadm -Sn output (with --iptables and --ipsets; or svclab
render --mode ipvs's combined file). Prints the rules on the
way, the verdict, whether the packet is masqueraded, and every endpoint it
can reach with its exact probability: the product of the statistic
probabilities on its path, as written and as the kernel applies them
(round(p·2^31)/2^31). No root needed.

Options:
  --dump FILE         the rules (iptables-save -c > FILE, nft list ruleset > FILE, svclab render)
  --dst IP:PORT       the service address
  --proto P           tcp (default), udp or sctp
  --src IP            the client address (default 10.244.255.1, a pod; fd00:10:244:ffff::1
                      for an IPv6 destination)
  --from pod|node     PREROUTING (a pod or another host, default) or OUTPUT (a host process)
  --local IP,...      the node's own addresses, for addrtype LOCAL, NodePorts and INPUT
  --in-iface NAME     the interface the packet comes in on (for -i matches)
  --out-iface NAME    the interface it leaves by (for -o matches)
  --mark N            the packet mark it enters with (default 0)
  --state S           new (default: the first packet) or established (nat is skipped)
  --ipsets FILE       the node's ipsets (ipset save > FILE), for -m set matches
  --iptables FILE     with an IPVS dump (ipvsadm -Sn > FILE): the node's iptables-save
  --nft-rules FILE    with an iptables-nft-save dump: the host's nft list ruleset; both are
                      walked as one, each hook's base chains in priority order (iptables-nft's
                      tables in the ruleset are skipped: the dump describes them)
  --format text|markdown|json
                      output format (default text; --json is --format json). JSON is
                      one object: endpoints as {"endpoint": "IP:port", "probability": p}

The iptables tracer walks raw, mangle, nat, filter and security in the
kernel's order. A match it cannot decide (an interface, ipset or module it
was not told about) is followed both ways; if the outcomes differ the
verdict is "unknown", the undecided rules are listed with what each choice
gives, and the exit code is 3.

The nftables tracer answers "unknown" (exit 3) for a packet that reaches a
statement or match it does not model (it lists them as undecided).

A destination that matches none of the dump's Services (a typo, or traffic
that is not to a Service) is traced as it is, and says so: "service -", a
message on stderr, exit code 4. A dump without Services (a host firewall)
exits 0. A file of both families' iptables or IPVS rules (svclab render
without --family) is refused: render one family with --family.

Exit codes:
  0  traced (the destination is a Service, or the dump has none)
  1  error
  2  bad usage or a malformed dump (the message names the file and line)
  3  the verdict is unknown
  4  no service matches the destination (the dump has Services)

Examples:
  svclab render --scenario two-endpoints --services 0 > rules.txt
  svclab trace --dump rules.txt --dst 172.30.0.43:80
  sudo iptables-save -c > dump.txt && svclab trace --dump dump.txt --dst 10.96.4.7:443 --json
  svclab trace --dump ruleset.nft --dst 10.96.0.10:53 --proto udp --from node
  sudo iptables-nft-save > ipt.txt; sudo nft list ruleset > nft.txt
  svclab trace --dump ipt.txt --nft-rules nft.txt --dst 10.96.10.1:80 --in-iface eth0
`

func runTrace(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("trace")
	dump := fs.String("dump", "", "")
	dst := fs.String("dst", "", "")
	proto := fs.String("proto", "tcp", "")
	src := fs.String("src", "", "")
	from := fs.String("from", "pod", "")
	local := fs.String("local", "", "")
	inIface := fs.String("in-iface", "", "")
	outIface := fs.String("out-iface", "", "")
	mark := fs.Uint("mark", 0, "")
	state := fs.String("state", "new", "")
	ipsets := fs.String("ipsets", "", "")
	iptablesFile := fs.String(string(dataplane.ModeIPTables), "", "") // --iptables FILE: an iptables-mode dump
	nftRules := fs.String("nft-rules", "", "")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	if rest, err := parseFlags(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	if ap, err := netip.ParseAddrPort(*dst); err == nil && *src == "" {
		*src = analyze.DefaultClient(ap.Addr()).String()
	}
	pkt, locals, err := tracePacket(*dst, *proto, *src, *from, *local)
	if err != nil {
		return err
	}
	if *dump == "" {
		return usagef("--dump FILE is required")
	}
	if *state != "new" && *state != "established" {
		return usagef("--state %q: want new or established", *state)
	}
	pkt.InIface, pkt.OutIface, pkt.Mark, pkt.State = *inIface, *outIface, uint32(*mark), *state
	res, err := analyze.TraceFile(analyze.Files{Dump: *dump, IPSets: *ipsets, IPTables: *iptablesFile, NFTRules: *nftRules}, analyze.Options{Local: locals}, pkt)
	if err != nil {
		return err
	}
	err = printResult(stdout, format.value, "svclab trace "+*dst, res, func(w io.Writer) error { return printTrace(w, res) })
	switch {
	case err != nil:
		return err
	case res.Verdict == "unknown":
		return &exitError{code: 3}
	case res.NoService:
		return &exitError{code: 4, msg: fmt.Sprintf("no service matches %s/%s: the dump has services, and the packet was traced as other traffic "+
			"(svclab analyze --dump %s lists them)", netip.AddrPortFrom(pkt.Dst, pkt.DPort), pkt.Proto, *dump)}
	}
	return nil
}

// tracePacket validates the packet flags.
func tracePacket(dst, proto, src, from, local string) (trace.Packet, []netip.Addr, error) {
	ap, err := netip.ParseAddrPort(dst)
	if err != nil {
		return trace.Packet{}, nil, usagef("--dst %q: want IP:PORT, e.g. 10.96.0.10:80", dst)
	}
	s, err := netip.ParseAddr(src)
	if err != nil {
		return trace.Packet{}, nil, usagef("--src %q: want an IP address", src)
	}
	if proto != "tcp" && proto != "udp" && proto != "sctp" {
		return trace.Packet{}, nil, usagef("--proto %q: want tcp, udp or sctp", proto)
	}
	if from != "pod" && from != "node" {
		return trace.Packet{}, nil, usagef("--from %q: want pod or node", from)
	}
	var locals []netip.Addr
	for _, l := range strings.Split(local, ",") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		a, err := netip.ParseAddr(l)
		if err != nil {
			return trace.Packet{}, nil, usagef("--local %q: want IP addresses separated by commas", local)
		}
		locals = append(locals, a)
	}
	return trace.Packet{Src: s, Dst: ap.Addr(), Proto: proto, DPort: ap.Port(), From: from}, locals, nil
}

func printTrace(w io.Writer, r analyze.Result) error {
	fmt.Fprintf(w, "%s (%s dump)\n\npath:\n", r.Packet, r.Dump)
	for _, p := range r.Path {
		fmt.Fprintf(w, "  %s\n", p)
	}
	fmt.Fprintf(w, "\nservice %s, verdict %s, masquerade %v, %d rules evaluated, %d map lookups\n",
		orDash(r.Service), r.Verdict, r.Masquerade, r.RulesEvaluated, r.MapLookups)
	if len(r.Endpoints) > 0 {
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "\nendpoint\tprobability\tkernel\tverdict\tmasquerade\trules")
		for _, e := range r.Endpoints {
			fmt.Fprintf(tw, "%s\t%.10f\t%.10f\t%s\t%v\t%d\n", e.Endpoint, e.Probability, e.Effective, e.Verdict, e.Masquerade, e.Rules)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, f := range r.Flags {
		fmt.Fprintf(w, "note: %s\n", f)
	}
	for _, u := range r.Undecided {
		fmt.Fprintf(w, "undecided: %s\n", u)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
