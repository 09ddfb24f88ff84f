package main

import (
	"context"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/sim/cost"
	"github.com/svclab/svclab/sim/migrate"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "migrate", summary: "what changes for every Service when kube-proxy switches mode, version or flags", usage: withVersions(migrateUsage), run: runMigrate})
}

const migrateUsage = `Usage: svclab migrate --from MODE[@VERSION] --to MODE[@VERSION] [options] OBJECTS|SCENARIO

For every Service, port, family and traffic path of a cluster (kubectl
objects or a scenario), routes the first packet through the rules each side's
kube-proxy writes and reports what differs: the endpoints and their
probabilities, the source address they see, accepted, dropped or rejected,
ClientIP affinity. The paths: to the ClusterIP from a pod on the node, the
node itself, an external client and an endpoint of the Service (hairpin); a
port of the ClusterIP no Service uses; the NodePort on the node's primary
address, on 127.0.0.1 and on each --node-address; LoadBalancer IPs from
inside and outside their source ranges; externalIPs. Differences are grouped
into classes of one cause, each with kube-proxy's flag, rule, version and
upstream reference (docs/migration.md) and what to do.

MODE is iptables, nftables or ipvs; VERSION one of VERSIONS (default the
newest). nftables' unset --nodeport-addresses is "primary", as kube-proxy's
command defaults it.

Options:
  --from MODE[@VERSION]       the kube-proxy the node runs now
  --to MODE[@VERSION]         the kube-proxy it moves to
  --from-flag FLAG=VALUE      a kube-proxy flag of the from side (repeatable):
  --to-flag FLAG=VALUE          nodeport-addresses=CIDR,...|primary, localhost-nodeports=BOOL,
                                masquerade-all=BOOL, feature-gates=NAME=BOOL (native engine)
  --node-address IP,...       the node's other local addresses NodePorts are tried on
                              (a second interface's; default none)
  --engine kube-proxy|native  who writes each side's rules: kube-proxy's own code
                              (default; make kube-proxy builds its drivers) or svclab's renderers
  --format text|markdown|json text for people (default), Markdown for a pull request,
                              JSON for tools (--json is --format json)
  --scale K                   the cost beside it also at K times the cluster's size
                              (Services generated in its shape, as svclab plan --scale)
  --calibration DIR           the cost model's calibration, as svclab plan's: this
                              directory, else the newest under results/calibration, else
                              the embedded default
  --allow-other-machine       use a calibration measured on another CPU model (extrapolating)
  --verify                    (Linux, root) confirm each class in the kernel: each side's
                              engine programs a scratch lab node (iptables mode: through
                              iptables-legacy and iptables-nft), and each class's example
                              paths and a few unchanged control paths are connected to on
                              their real path (pod, node, 127.0.0.1, external client,
                              hairpin); each class is CONFIRMED, CONTRADICTED or NOT
                              VERIFIED (IPv4 and IPv6; SCTP paths: not yet); an IPVS side runs
                              in a user-mode-linux guest when this kernel has no IPVS

Beside the differences, each side's cost on this node from svclab plan's
calibrated model: ruleset size, full sync (cold start), incremental sync,
first-packet latency p50/p99 and kernel memory with their 95% intervals, at
the cluster's size and at --scale K; "not calibrated" where the calibration
has no figure for a side's dataplane (the embedded one has no IPVS).

Exit status: 0 every path behaves the same, 1 some differ, 2 bad input,
5 (--verify) the kernel contradicted the tracer on some class or control
(a bug in svclab: the report shows the probe and both outcomes).

Examples:
  svclab migrate --from iptables --to nftables scenarios/objects/migration-example.yaml
  svclab migrate --from ipvs@1.35 --to nftables@1.37 --format markdown cluster.yaml > migration.md
  svclab migrate --from iptables --to nftables --scale 10 cluster.yaml
  svclab migrate --from nftables@1.35 --to nftables@1.37 --format json cluster.yaml
  svclab migrate --from nftables --to nftables --to-flag nodeport-addresses=0.0.0.0/0 --node-address 10.0.5.1 cluster.yaml
  svclab migrate --from iptables --to nftables --engine native --node-address 192.168.100.1 migration-example
  sudo svclab migrate --verify --from iptables --to nftables --node-address 192.168.100.1 scenarios/objects/migration-example.yaml
`

// exitContradicted is migrate --verify's exit code when the kernel
// contradicts the tracer (README "Exit codes").
const exitContradicted = 5

// verifyKernel sends migrate --verify's probes through the kernel
// (migrate_linux.go); nil where the lab does not run.
var verifyKernel func(ctx context.Context, r *migrate.Result, probes []migrate.Probe, engine string, progress io.Writer) ([]migrate.Kernel, error)

// sideFlags is one side's --*-flag values.
type sideFlags struct {
	proxy scenario.ProxyFlags
	gates map[string]bool
}

// Set reads FLAG=VALUE.
func (s *sideFlags) Set(v string) error {
	name, val, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("%q: want FLAG=VALUE", v)
	}
	switch name {
	case "nodeport-addresses":
		s.proxy.NodePortAddresses = strings.Split(val, ",")
	case "localhost-nodeports", "masquerade-all":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Errorf("%s=%q: want true or false", name, val)
		}
		if name == "masquerade-all" {
			s.proxy.MasqueradeAll = &b
		} else {
			s.proxy.LocalhostNodePorts = &b
		}
	case "feature-gates":
		g, err := scenario.ParseFeatureGates(val)
		if err != nil {
			return err
		}
		s.gates = g
	default:
		return fmt.Errorf("%q: svclab knows nodeport-addresses, localhost-nodeports, masquerade-all and feature-gates", name)
	}
	return nil
}

func (s *sideFlags) String() string { return "" }

type migrateFlags struct {
	from, to, engine   string
	format             *formatFlag
	fromFlags, toFlags sideFlags
	nodeAddrs          []netip.Addr
	verify             bool
	scale              float64
	calibration        string
	allowOther         bool
}

func runMigrate(args []string, stdout, stderr io.Writer) error {
	var f migrateFlags
	fs := newFlagSet("migrate")
	fs.StringVar(&f.from, "from", "", "")
	fs.StringVar(&f.to, "to", "", "")
	fs.Var(&f.fromFlags, "from-flag", "")
	fs.Var(&f.toFlags, "to-flag", "")
	fs.StringVar(&f.engine, "engine", scenario.EngineKubeProxy, "")
	fs.BoolVar(&f.verify, "verify", false, "")
	fs.Float64Var(&f.scale, "scale", 1, "")
	fs.StringVar(&f.calibration, "calibration", "", "")
	fs.BoolVar(&f.allowOther, "allow-other-machine", false, "")
	f.format = addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	fs.Func("node-address", "", func(v string) error {
		for _, a := range strings.Split(v, ",") {
			ip, err := netip.ParseAddr(strings.TrimSpace(a))
			if err != nil {
				return fmt.Errorf("%q is not an IP address", a)
			}
			f.nodeAddrs = append(f.nodeAddrs, ip)
		}
		return nil
	})
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	in, err := migrateInput(f, rest)
	if err != nil {
		return err
	}
	if err := checkScale(f.scale); err != nil {
		return err
	}
	costModel, err := planModel(f.calibration, cost.Options{}, f.allowOther)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "svclab migrate: %d Services, %s → %s (%s engine)\n", in.Model.Services.Len(), in.From, in.To, f.engine)
	if f.verify && verifyKernel == nil {
		return &exitError{code: 2, msg: "svclab migrate --verify needs Linux (network namespaces) and root"}
	}
	res, err := migrate.Compare(in)
	if err != nil {
		return err
	}
	if f.verify {
		probes := migrate.VerifyProbes(res)
		fmt.Fprintf(stderr, "svclab migrate --verify: %d probes per kernel run\n", len(probes))
		kernels, err := verifyKernel(context.Background(), res, probes, f.engine, stderr)
		if err != nil {
			return err
		}
		res.Verification = migrate.Judge(res, probes, kernels)
	}
	if res.Cost, err = migrateCost(costModel, res, f.scale); err != nil {
		return err
	}
	if err := migrate.Write(stdout, res, string(f.format.value)); err != nil {
		return err
	}
	if res.Verification.Contradicted() {
		return &exitError{code: exitContradicted}
	}
	if len(res.Differences) > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// migrateInput checks the flags and builds the comparison's input.
func migrateInput(f migrateFlags, rest []string) (migrate.Input, error) {
	var in migrate.Input
	if len(rest) != 1 {
		return in, usagef("give one OBJECTS file or SCENARIO (got %d arguments)", len(rest))
	}
	if f.from == "" || f.to == "" {
		return in, usagef("give --from MODE[@VERSION] and --to MODE[@VERSION]")
	}
	sc, err := scenario.Load(rest[0])
	if err != nil {
		return in, &exitError{code: 2, msg: err.Error()}
	}
	if in.From, err = sideOf(sc, "--from", f.from, f.fromFlags, f.engine); err != nil {
		return in, err
	}
	if in.To, err = sideOf(sc, "--to", f.to, f.toFlags, f.engine); err != nil {
		return in, err
	}
	if in.Model, err = scenarioModel(sc, renderFlags{services: -1, endpoints: 2, seed: 1}); err != nil {
		return in, err
	}
	in.Node = migrate.Node{Other: f.nodeAddrs}
	switch f.engine {
	case scenario.EngineKubeProxy:
		in.Rules = kubeproxy.MigrateRules
	case scenario.EngineNative:
		in.Rules = migrate.NativeRules
	default:
		return in, usagef("--engine %q: want %s or %s", f.engine, scenario.EngineKubeProxy, scenario.EngineNative)
	}
	return in, nil
}

// migrateCost is each side's cost at the cluster's size and, for a scale
// other than 1, at scale times it.
func migrateCost(m *cost.Model, res *migrate.Result, scale float64) (*migrate.Costs, error) {
	sizes := []migrate.Sized{{Scale: 1, Model: res.Model}}
	if scale != 1 {
		svcs := make(model.Slice, res.Model.Services.Len())
		for i := range svcs {
			svcs[i] = *res.Model.Services.At(i)
		}
		o := &objects.Objects{Services: svcs}
		scaled, err := scaledModel(res.Model, o.Shape(res.Model.Cluster.NodeName), scale)
		if err != nil {
			return nil, err
		}
		sizes = append(sizes, migrate.Sized{Scale: scale, Model: scaled})
	}
	return migrate.CostsOf(m, res.From, res.To, sizes)
}

// sideOf reads one side: MODE[@VERSION] and its flags over the scenario's.
func sideOf(sc *scenario.Scenario, name, spec string, flags sideFlags, engine string) (migrate.Side, error) {
	side, err := migrate.ParseSide(spec)
	if err != nil {
		return side, usagef("%s %v", name, err)
	}
	s, err := sc.WithKubeProxy("", string(side.Version))
	if err == nil {
		s, err = s.WithProxyFlags(flags.proxy)
	}
	if err == nil && flags.gates != nil {
		if engine == scenario.EngineKubeProxy {
			return side, usagef("%s-flag feature-gates: the kube-proxy engine takes no feature gates; add --engine native", name)
		}
		s, err = s.WithFeatureGates(flags.gates)
	}
	if err != nil {
		return side, usagef("%s %s: %v", name, spec, err)
	}
	side.Config = s.KubeProxy.Config("")
	return side, nil
}
