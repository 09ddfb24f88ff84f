package main

import (
	"context"
	"errors"
	"io"
	"net/netip"
	"os"
	"strings"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/audit"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "audit", summary: "compare a node's rules with what kube-proxy should have written for the objects", usage: withVersions(auditUsage), run: runAudit})
	inputErrors = append(inputErrors, func(err error) bool { return errors.Is(err, audit.ErrInput) })
	readsNamedFiles["audit"] = true
}

const auditUsage = `Usage: svclab audit --objects FILE (--dump FILE | --live) [options]

Compares the rules a node holds with what kube-proxy of the node's mode and
version should have written for the cluster's objects on this node (its name,
addresses and zone), and says per Service what is missing, what is stale
(Services or endpoints that no longer exist) and what differs (another
version's layout, a flag), and what that does to traffic: every path of every
Service (pod and node to the ClusterIP, an external client to the NodePort,
load-balancer and external IPs) is traced over kube-proxy's rules and over
the node's, and each difference is named (endpoint gone, traffic dropped,
stale endpoint still receiving, share or source changed).

Findings are semantic: chains, rules, set and map elements, virtual and real
servers, ipset members, keyed to their Service. Counters, comments, the order
kube-proxy is free to choose and other owners' tables and chains are not
findings.

Options:
  --objects FILE|-        kubectl get services,endpointslices,nodes -A -o yaml (a List)
  --dump FILE             the node's rules: iptables-save (ip6tables-save), nft list ruleset,
                          or ipvsadm -Sn (with --ipsets and --iptables)
  --ipsets FILE           IPVS: the node's ipset save
  --iptables FILE         IPVS: the node's iptables-save
  --live                  read the rules here (Linux, as root, in the current network
                          namespace) with the mode's tools instead of --dump
  --iptables-backend B    with --live: legacy or nft (default: the system's iptables-save)
  --node NAME             the node audited (default: the first Node of the objects)
  --node-ip IP            the node's address, when the Node object's is not kube-proxy's
  --mode M                iptables, nftables or ipvs (default: the dump's kind; needed with --live)
  --kube-proxy-version V  the node's kube-proxy: VERSIONS (default the newest)
  --engine E              who says what kube-proxy writes: kube-proxy (default: its own
                          proxier in render mode; make kube-proxy builds it) or native
                          (svclab's renderers, held to kube-proxy's by the conformance suite)
  --family F              ipv4 (default) or ipv6: the proxier audited
  --cluster-cidr CIDR     kube-proxy's --cluster-cidr (default 10.0.0.0/8)
  --service-cidr CIDR     the cluster's service CIDR (default 10.96.0.0/12)
  --masquerade-all        kube-proxy runs with --masquerade-all
  --format F              text (default), markdown or json (--json is an alias)

Exit codes: 0 the node holds exactly kube-proxy's rules, 1 findings,
2 bad input, 3 the audit could not be made (e.g. the driver failed).

Examples:
  kubectl get services,endpointslices,nodes -A -o yaml > cluster.yaml
  ssh node-1 sudo iptables-save > node-1.rules
  svclab audit --objects cluster.yaml --dump node-1.rules --node node-1
  svclab audit --objects cluster.yaml --dump ruleset.nft --node node-1 --kube-proxy-version 1.35 --format markdown
  svclab audit --objects cluster.yaml --dump ipvs.txt --ipsets ipsets.txt --iptables iptables.txt --node node-1
  sudo svclab audit --objects cluster.yaml --live --mode nftables --node "$(hostname)" --json
`

type auditFlags struct {
	objects, dump, ipsets, iptables, backend string
	node, nodeIP, mode, version, engine      string
	family, clusterCIDR, serviceCIDR         string
	format                                   *formatFlag
	live, masqueradeAll                      bool
}

func runAudit(args []string, stdout, stderr io.Writer) error {
	f, err := parseAuditFlags(args)
	if err != nil {
		return err
	}
	in, err := auditInput(f)
	if err != nil {
		return err
	}
	rep, err := audit.Run(in)
	switch {
	case errors.Is(err, audit.ErrInput) || errors.Is(err, kubeproxy.ErrNotBuilt):
		return usagef("%v", err)
	case err != nil:
		return &exitError{code: 3, msg: err.Error()}
	}
	if err := writeAudit(stdout, rep, string(f.format.value)); err != nil {
		return err
	}
	if !rep.Clean() {
		return &exitError{code: 1}
	}
	return nil
}

func parseAuditFlags(args []string) (auditFlags, error) {
	var f auditFlags
	fs := newFlagSet("audit")
	for _, s := range []struct {
		p    *string
		name string
		def  string
	}{{&f.objects, "objects", ""}, {&f.dump, "dump", ""}, {&f.ipsets, "ipsets", ""}, {&f.iptables, string(dataplane.ModeIPTables), ""},
		{&f.backend, "iptables-backend", ""}, {&f.node, "node", ""}, {&f.nodeIP, "node-ip", ""}, {&f.mode, "mode", ""},
		{&f.version, "kube-proxy-version", ""}, {&f.engine, "engine", scenario.EngineKubeProxy}, {&f.family, "family", "ipv4"},
		{&f.clusterCIDR, "cluster-cidr", ""}, {&f.serviceCIDR, "service-cidr", ""}} {
		fs.StringVar(s.p, s.name, s.def, "")
	}
	fs.BoolVar(&f.live, "live", false, "")
	fs.BoolVar(&f.masqueradeAll, "masquerade-all", false, "")
	f.format = addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	rest, err := parseFlags(fs, args)
	switch {
	case err != nil:
		return f, err
	case len(rest) > 0:
		return f, usagef("unexpected argument %q", rest[0])
	case f.objects == "":
		return f, usagef("--objects FILE is required (kubectl get services,endpointslices,nodes -A -o yaml)")
	case (f.dump == "") == !f.live:
		return f, usagef("give the node's rules: --dump FILE, or --live to read them here")
	}
	return f, nil
}

// auditInput reads the objects and the node's rules.
func auditInput(f auditFlags) (audit.Input, error) {
	var in audit.Input
	name, raw, err := readObjects(f.objects)
	if err != nil {
		return in, err
	}
	if in.Objects, err = objects.Decode(name, raw); err != nil {
		return in, err
	}
	if in.Family, err = auditFamily(f.family); err != nil {
		return in, err
	}
	if in.Version, err = render.ParseKubeProxyVersion(f.version); err != nil {
		return in, usagef("--kube-proxy-version: %v", err)
	}
	if in.Cluster, err = auditCluster(f); err != nil {
		return in, err
	}
	in.Flags.MasqueradeAll = f.masqueradeAll
	in.OtherVersions = render.KubeProxyVersions
	in.Node = f.node
	if f.nodeIP != "" {
		if in.NodeIP, err = netip.ParseAddr(f.nodeIP); err != nil {
			return in, usagef("--node-ip %q: not an IP address", f.nodeIP)
		}
	}
	if in.Dump, in.Mode, err = nodeDump(f, in.Family); err != nil {
		return in, err
	}
	switch f.engine {
	case scenario.EngineKubeProxy:
		in.Expected = audit.KubeProxy(context.Background(), kubeproxy.RenderFirst)
	case scenario.EngineNative:
		in.Expected = audit.Native
	default:
		return in, usagef("--engine %q: want %s or %s", f.engine, scenario.EngineKubeProxy, scenario.EngineNative)
	}
	return in, nil
}

func auditFamily(s string) (model.Family, error) {
	switch strings.ToLower(s) {
	case "ipv4":
		return model.IPv4, nil
	case "ipv6":
		return model.IPv6, nil
	}
	return 0, usagef("--family %q: want ipv4 or ipv6", s)
}

// auditCluster is the cluster's settings from the flags.
func auditCluster(f auditFlags) (*model.Cluster, error) {
	c := model.DefaultCluster()
	for _, p := range []struct {
		flag, text string
		dst        *netip.Prefix
	}{{"--cluster-cidr", f.clusterCIDR, &c.ClusterCIDR}, {"--service-cidr", f.serviceCIDR, &c.ServiceCIDR}} {
		if p.text == "" {
			continue
		}
		v, err := netip.ParsePrefix(p.text)
		if err != nil {
			return nil, usagef("%s %q: not a CIDR", p.flag, p.text)
		}
		*p.dst = v.Masked()
	}
	return &c, nil
}

// nodeDump reads the node's rules from the files, or live, and its mode.
func nodeDump(f auditFlags, fam model.Family) (*analyze.Dump, dataplane.Mode, error) {
	mode := dataplane.Mode(f.mode)
	if f.mode != "" && !validMode(mode) {
		return nil, "", usagef("--mode %q: want one of %v", f.mode, dataplane.Modes())
	}
	if f.live {
		if mode == "" {
			return nil, "", usagef("--live needs --mode (%v)", dataplane.Modes())
		}
		d, err := liveRules(mode, fam, f.backend)
		return d, mode, err
	}
	d, err := analyze.LoadFile(f.dump)
	if err != nil {
		return nil, "", err
	}
	if mode == "" {
		mode = dataplane.Mode(d.Kind)
	}
	if f.ipsets != "" {
		if d.IPSets, err = readIPSets(f.ipsets); err != nil {
			return nil, "", err
		}
	}
	if f.iptables != "" {
		ipt, err := analyze.LoadFile(f.iptables)
		if err != nil {
			return nil, "", err
		}
		if ipt.Kind != analyze.KindIPTables {
			return nil, "", analyze.BadDump(f.iptables, errors.New("not an iptables-save dump"))
		}
		d.IPT = ipt.IPT
	}
	return d, mode, nil
}

func validMode(m dataplane.Mode) bool {
	for _, x := range dataplane.Modes() {
		if x == m {
			return true
		}
	}
	return false
}

func readIPSets(path string) (ipvs.IPSets, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	sets, err := ipvs.ParseIPSetSave(fh)
	if err != nil {
		return nil, analyze.BadDump(path, err)
	}
	return sets, nil
}

func writeAudit(w io.Writer, rep *audit.Report, format string) error {
	switch format {
	case "json":
		return rep.WriteJSON(w)
	case "markdown":
		return rep.WriteMarkdown(w)
	}
	return rep.WriteText(w)
}

// liveRules reads the node's rules here; audit_linux.go sets it.
var liveRules = func(dataplane.Mode, model.Family, string) (*analyze.Dump, error) {
	return nil, usagef("--live needs Linux (it runs the node's tools); give --dump FILE instead")
}
