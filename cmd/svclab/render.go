package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/route"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "render", summary: "print the rules kube-proxy would load for a scenario", usage: withVersions(renderUsage), run: runRender})
}

// versionsPlaceholder in a command's usage is replaced by the supported
// kube-proxy versions (render's version table).
const versionsPlaceholder = "VERSIONS"

// withVersions returns usage with the supported kube-proxy versions filled
// in.
func withVersions(usage string) string {
	return strings.ReplaceAll(usage, versionsPlaceholder, render.SupportedKubeProxyVersions())
}

const renderUsage = `Usage: svclab render --mode MODE (--scenario FILE|NAME | --services N --endpoints M [--seed S]) [options]

Prints on stdout the exact payload kube-proxy's MODE would hand to the kernel
tools: iptables-restore input (iptables), an nft -f script (nftables), or
ipvsadm -R, ipset restore and iptables-restore input (ipvs, three sections).

Options:
  --mode iptables|nftables|ipvs   the kube-proxy mode (default iptables)
  --scenario FILE|NAME            a scenario file, or an embedded scenario's name
  --services N                    synthetic services (instead of, or added to, a scenario)
  --endpoints M                   endpoints per synthetic service (default 2)
  --seed S                        generator seed (default 1)
  --position first|middle|last|K  where the scenario's own services sit in KUBE-SERVICES
  --jumps                         iptables: also print the jump rules from the built-in chains
  --nfacct                        iptables: write kube-proxy's nfacct counter matches, as it does
                                  on a kernel with xt_nfacct and its counters created
  --random-fully=false            iptables and ipvs: an iptables without MASQUERADE --random-fully
                                  (kube-proxy up to v1.36 probes for it; v1.37 always writes it)
  --family ipv4|ipv6              print only that family's proxier's payload (default every
                                  family the services use; a dual-stack model prints IPv4's,
                                  then IPv6's, each after a "# svclab: ..." comment line)
  --masquerade-all                kube-proxy's --masquerade-all (default the scenario's)
  --nodeport-addresses LIST       kube-proxy's --nodeport-addresses: CIDRs, or primary
  --localhost-nodeports=BOOL      kube-proxy's --iptables-localhost-nodeports (default true)
  --feature-gates NAME=BOOL,...   kube-proxy's --feature-gates, over the scenario's; svclab knows
                                  KubeProxyNFTablesLocalhostNodePorts (v1.37, nftables; native engine)
  --summary                       print services, endpoints, rules and bytes per mode instead
  --engine native|kube-proxy      who writes the rules (default the scenario's, else native):
                                  kube-proxy runs kube-proxy's own proxier (make kube-proxy builds it)
  --kube-proxy-version V          whose rules, for both engines: VERSIONS
                                  (default the scenario's, else the newest; v1.36+ changed
                                  the nftables layout)

Examples:
  svclab render --mode iptables --scenario two-endpoints --services 0
  svclab render --mode nftables --services 1000 --endpoints 3 --seed 7 > kube-proxy.nft
  svclab render --mode iptables --services 10000 --endpoints 2 | iptables-nft-restore --test
  svclab render --summary --scenario two-endpoints
  svclab render --mode nftables --scenario two-endpoints --kube-proxy-version 1.35
  svclab render --mode nftables --scenario two-endpoints --engine kube-proxy   # kube-proxy v1.37's transaction
  svclab render --mode iptables --scenario cluster.yaml --family ipv6 | ip6tables-restore --test
  svclab render --mode iptables --scenario two-endpoints --nodeport-addresses 192.168.0.0/24 --masquerade-all
`

type renderFlags struct {
	mode, scenario, position string
	services, endpoints      int
	seed                     uint64
	jumps, summary, nfacct   bool
	servicesSet              bool // --services was given
	engine, version          string
	family                   string
	proxy                    scenario.ProxyFlags
	randomFully              *bool
	featureGates             map[string]bool // --feature-gates; nil: the scenario's
}

func runRender(args []string, stdout, stderr io.Writer) error {
	var f renderFlags
	fs := newFlagSet("render")
	fs.StringVar(&f.mode, "mode", string(dataplane.ModeIPTables), "")
	fs.StringVar(&f.scenario, "scenario", "", "")
	fs.StringVar(&f.position, "position", "", "")
	fs.IntVar(&f.services, "services", -1, "")
	fs.IntVar(&f.endpoints, "endpoints", 2, "")
	fs.Uint64Var(&f.seed, "seed", 1, "")
	fs.BoolVar(&f.jumps, "jumps", false, "")
	fs.BoolVar(&f.summary, "summary", false, "")
	fs.BoolVar(&f.nfacct, "nfacct", false, "")
	fs.Var(optionalBool{&f.randomFully}, "random-fully", "")
	fs.StringVar(&f.engine, "engine", "", "")
	fs.StringVar(&f.version, "kube-proxy-version", "", "")
	fs.StringVar(&f.family, "family", "", "")
	format := addFormatFlag(fs, formatText, formatMarkdown)
	fs.Var(optionalBool{&f.proxy.MasqueradeAll}, "masquerade-all", "")
	fs.Var(optionalBool{&f.proxy.LocalhostNodePorts}, "localhost-nodeports", "")
	fs.Func("feature-gates", "", func(v string) (err error) {
		f.featureGates, err = scenario.ParseFeatureGates(v)
		return err
	})
	fs.Func("nodeport-addresses", "", func(v string) error {
		f.proxy.NodePortAddresses = strings.Split(v, ",")
		return nil
	})
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	fs.Visit(func(fl *flag.Flag) { f.servicesSet = f.servicesSet || fl.Name == "services" })
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	m, kp, err := modelFor(f)
	if err != nil {
		return err
	}
	return printResult(stdout, format.value, "svclab render --mode "+f.mode, nil, func(w io.Writer) error { return renderRules(w, f, m, kp) })
}

// renderRules prints the payloads (or their sizes, --summary).
func renderRules(stdout io.Writer, f renderFlags, m *model.Model, kp scenario.KubeProxy) error {
	if f.summary {
		return renderSummary(stdout, m, kp)
	}
	fams, err := familiesFor(f.family, m)
	if err != nil {
		return err
	}
	for _, fam := range fams {
		if len(fams) > 1 {
			fmt.Fprintln(stdout, render.FamilyHeader(fam.String()))
		}
		if kp.Engine == scenario.EngineKubeProxy {
			whole := *m
			whole.Family = fam
			if err := renderWithKubeProxy(stdout, f.mode, &whole, renderConfig(kp, f.nfacct, f.randomFully)); err != nil {
				return err
			}
			continue
		}
		projected := model.ForFamily(*m, fam)
		if _, err := renderMode(stdout, f.mode, &projected, renderConfig(kp, f.nfacct, f.randomFully), f.jumps); err != nil {
			return err
		}
	}
	return nil
}

// familiesFor returns the proxiers to render: --family's, or every family
// the model's services use.
func familiesFor(flag string, m *model.Model) ([]model.Family, error) {
	switch strings.ToLower(flag) {
	case "":
		return model.Families(m.Services), nil
	case "ipv4":
		return []model.Family{model.IPv4}, nil
	case "ipv6":
		return []model.Family{model.IPv6}, nil
	}
	return nil, usagef("--family %q: want ipv4 or ipv6", flag)
}

// optionalBool is a boolean flag that remembers whether it was given
// (nil: keep the scenario's value); `--name` alone means true.
type optionalBool struct{ p **bool }

func (o optionalBool) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return strconv.FormatBool(**o.p)
}

func (o optionalBool) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	*o.p = &b
	return nil
}

// IsBoolFlag lets the flag be given without a value.
func (o optionalBool) IsBoolFlag() bool { return true }

// modelFor builds the model from a scenario, synthetic flags, or both,
// and says which engine and kube-proxy version write it.
func modelFor(f renderFlags) (*model.Model, scenario.KubeProxy, error) {
	var kp scenario.KubeProxy
	if f.services < -1 || (f.services == -1 && f.servicesSet) {
		return nil, kp, usagef("--services %d: want 0 or more", f.services)
	}
	if f.scenario == "" && f.services < 0 {
		return nil, kp, usagef("give --scenario FILE|NAME or --services N")
	}
	if f.endpoints < 0 {
		return nil, kp, usagef("--endpoints %d: want ≥ 0", f.endpoints)
	}
	sc, err := loadOrEmpty(f.scenario)
	if err != nil {
		return nil, kp, err
	}
	if f.engine != "" || f.version != "" {
		if sc, err = sc.WithKubeProxy(f.engine, f.version); err != nil {
			return nil, kp, usagef("--engine %q --kube-proxy-version %q: %v", f.engine, f.version, err)
		}
	}
	if f.proxy.MasqueradeAll != nil || f.proxy.NodePortAddresses != nil || f.proxy.LocalhostNodePorts != nil {
		if sc, err = sc.WithProxyFlags(f.proxy); err != nil {
			return nil, kp, usagef("kube-proxy flags: %v", err)
		}
	}
	if f.featureGates != nil {
		if sc, err = sc.WithFeatureGates(f.featureGates); err != nil {
			return nil, kp, usagef("--feature-gates: %v", err)
		}
	}
	m, err := scenarioModel(sc, f)
	return m, sc.KubeProxy, err
}

// loadOrEmpty loads a scenario, or returns an empty one (defaults only) for
// a purely synthetic model.
func loadOrEmpty(nameOrPath string) (*scenario.Scenario, error) {
	if nameOrPath == "" {
		return scenario.Parse("--services", []byte("synthetic: {services: 0}\n"))
	}
	return scenario.Load(nameOrPath)
}

func scenarioModel(sc *scenario.Scenario, f renderFlags) (*model.Model, error) {
	n, eps, seed := 0, f.endpoints, f.seed
	if syn := sc.Synthetic; syn != nil {
		n, eps, seed = syn.Services, syn.EndpointsPerService, syn.Seed
	}
	if f.services >= 0 {
		n, eps, seed = f.services, f.endpoints, f.seed
	}
	pos := sc.Placement
	if f.position != "" {
		pos = f.position
	}
	if p, err := model.ParsePosition(f.position); err == nil && f.position != "" && p.Kind == model.PositionIndex && p.Index > n {
		return nil, usagef("--position %d: there are %d synthetic services to place the scenario's own among (use 0..%d, first, middle or last)", p.Index, n, n)
	}
	m, err := sc.ModelWith(n, eps, seed, pos)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return m, nil
}

// renderConfig is the kube-proxy configuration render writes with: the
// scenario's release and feature gates, and the host facts --nfacct and
// --random-fully give (randomFully nil: as the iptables of this machine,
// which has --random-fully).
func renderConfig(kp scenario.KubeProxy, nfacct bool, randomFully *bool) render.Config {
	cfg := kp.Config("")
	cfg.Host.NFAcct = nfacct
	if randomFully != nil {
		cfg.Host.NoRandomFully = !*randomFully
	}
	return cfg
}

// renderMode writes one mode's payload as the kube-proxy cfg describes
// writes it (route.Render, one entry per mode), and with jumps the
// iptables mode's jump rules after it. --jumps and --nfacct are iptables
// mode's flags, --random-fully iptables and IPVS mode's (see renderUsage;
// each renderer's OptionsFor takes the host facts its mode reads).
func renderMode(w io.Writer, mode string, m *model.Model, cfg render.Config, jumps bool) (render.Stats, error) {
	md, err := dataplane.ParseMode(mode)
	if err != nil {
		return render.Stats{}, usagef("--%v", err)
	}
	stats, err := route.Render(w, m, route.Config{Mode: md, Config: cfg})
	if err != nil || !jumps || md != dataplane.ModeIPTables {
		return stats, err
	}
	_, err = iptables.RenderModelJumps(w, m, iptables.OptionsFor(cfg))
	return stats, err
}

// renderSummary prints, per mode (and per family of a model with both),
// the size of the payload.
func renderSummary(w io.Writer, m *model.Model, kp scenario.KubeProxy) error {
	fmt.Fprintf(w, "services %d, endpoints %d\n\n", m.Services.Len(), model.TotalEndpoints(m.Services))
	fams := model.Families(m.Services)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tfamily\tlines\tbytes\trules\tchains\tsets\telements\t")
	for _, mode := range dataplane.ModeNames() {
		for _, fam := range fams {
			projected := model.ForFamily(*m, fam)
			s, err := renderMode(io.Discard, mode, &projected, kp.Config(""), false)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", mode, fam, s.Lines, s.Bytes, s.Rules, s.Chains, s.Sets, s.Elements)
		}
	}
	return tw.Flush()
}
