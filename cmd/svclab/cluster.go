package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	labcluster "github.com/svclab/svclab/lab/cluster"
	"github.com/svclab/svclab/sim/cluster"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "cluster", summary: "run a matrix of lab runs as Indexed Jobs on a cluster's node pools; audit every node's rules", usage: clusterUsage + clusterAuditUsage, run: runCluster})
}

const clusterUsage = `Usage: svclab cluster run --image IMAGE --pool NAME=LABEL=VALUE... [options]
       svclab cluster audit --image IMAGE --mode M [options]   (below)
       svclab cluster cell      (what each Job's pod runs; not for people)
       svclab cluster audit-node (what each audit DaemonSet pod runs; not for people)

'run' is the default subcommand: 'svclab cluster --image …' is 'svclab cluster run --image …'.

Runs a matrix (scenarios × dataplanes × kube-proxy versions × node pools) on
a Kubernetes cluster: one Indexed Job per pool (a Job has one node selector),
one cell per index (JOB_COMPLETION_INDEX), each pod privileged in its own
network namespace, running 'svclab run' for its cell and printing its run
directory as a base64 tar between markers in its log. The command reports
progress, collects every cell into OUT/cells/POOL_SCENARIO_DATAPLANE_VERSION,
prints the merged report (svclab merge) and deletes the Jobs and pods on
success, failure and Ctrl-C. It uses your kubeconfig (client-go's rules:
--kubeconfig, then $KUBECONFIG, then ~/.kube/config).

Options:
  --image IMAGE            the svclab image (make image builds it; push it where the nodes pull)
  --pool NAME=SEL          a node pool: a name and a label selector (LABEL=VALUE[,LABEL=VALUE]);
                           repeat for each pool
  --scenario LIST          embedded scenarios (default split-2)
  --dataplane LIST         dataplanes, one cell each (default the first scenario's)
  --kube-proxy-version LIST  VERSIONS (default the newest)
  --engine E               native or kube-proxy (default the scenario's)
  --retries N              backoffLimitPerIndex: retries of each cell (default 1)
  --timeout D              each Job's activeDeadlineSeconds (default 2h)
  --namespace NS           (default the kubeconfig context's, else default)
  --kubeconfig FILE, --context NAME
  --out DIR                where cells go (default results/cluster/RUNID)
  --dry-run                print the Jobs as YAML and create nothing
  --format text|markdown|json  the merged report's format (default text)

Exit status: 0 every cell succeeded; 1 a Job failed (the collected cells are
kept); 2 bad input; 130 interrupted (the Jobs and pods were deleted).

Examples:
  svclab cluster run --dry-run --image registry.example/svclab:v1 --pool c5=node.kubernetes.io/instance-type=c5.xlarge
  svclab cluster run --image registry.example/svclab:v1 \
      --pool old=kubernetes.io/os=linux,pool=gen5 --pool new=pool=gen7 \
      --dataplane iptables-nft,nftables --kube-proxy-version 1.36,1.37
  svclab merge results/cluster/*/cells/*
`

type clusterFlags struct {
	image, scenarios, dataplanes, versions, engine string
	namespace, kubeconfig, context, out            string
	pools                                          poolList
	retries                                        int
	timeout                                        time.Duration
	dryRun                                         bool
	format                                         *formatFlag
}

// poolList is the repeated --pool flag.
type poolList []cluster.Pool

func (p *poolList) String() string { return fmt.Sprint(len(*p)) }

func (p *poolList) Set(s string) error {
	pool, err := cluster.ParsePool(s)
	if err != nil {
		return err
	}
	*p = append(*p, pool)
	return nil
}

func runCluster(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("give a subcommand: run or audit (or cell and audit-node, inside the pods)")
	}
	switch args[0] {
	case "run":
		return runClusterRun(args[1:], stdout, stderr)
	case "cell":
		return runClusterCell(args[1:], stdout, stderr)
	case "audit":
		return runClusterAudit(args[1:], stdout, stderr)
	case "audit-node":
		return runClusterAuditNode(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		return errHelp
	}
	if strings.HasPrefix(args[0], "-") {
		return runClusterRun(args, stdout, stderr) // run is the default subcommand
	}
	return usagef("unknown subcommand %q: want run or audit (or cell and audit-node)", args[0])
}

func runClusterRun(args []string, stdout, stderr io.Writer) error {
	f, err := parseClusterFlags(args)
	if err != nil {
		return err
	}
	m, err := clusterMatrix(f)
	if err != nil {
		return err
	}
	runID := time.Now().UTC().Format("20060102-150405")
	kc, err := loadKubeconfig(f.kubeconfig, f.context, f.namespace, f.dryRun)
	if err != nil {
		return err
	}
	ns := kc.namespace
	jobs, err := cluster.Jobs(m, cluster.JobOptions{Image: f.image, Namespace: ns, RunID: runID, Retries: int32(f.retries), DeadlineSeconds: int64(f.timeout.Seconds())})
	if err != nil {
		return usagef("%v", err)
	}
	if f.dryRun {
		return printJobs(stdout, jobs)
	}
	client, err := kc.client("--dry-run to print the Jobs")
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = filepath.Join("results", "cluster", runID)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &labcluster.Runner{Target: labcluster.Target{Client: client, Namespace: ns, RunID: runID, Progress: stderr}}
	outcome, runErr := r.Run(ctx, jobs, out)
	return finishClusterRun(ctx, outcome, runErr, out, f.format.value, stdout, stderr)
}

// finishClusterRun merges what was collected and maps the run's error to
// the exit status.
func finishClusterRun(ctx context.Context, outcome labcluster.Outcome, runErr error, out string, format outputFormat, stdout, stderr io.Writer) error {
	if ctx.Err() != nil {
		return &exitError{code: 130, msg: fmt.Sprintf("interrupted; the Jobs and pods were deleted; %d cells collected in %s", len(outcome.Cells), out)}
	}
	dirs := make([]string, 0, len(outcome.Cells))
	for _, d := range outcome.Cells {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	if len(dirs) > 0 {
		fmt.Fprintf(stderr, "cluster: %d cells in %s/cells; merged report (svclab merge %s/cells/*):\n", len(dirs), out, out)
		if err := mergeCells(dirs, filepath.Join(out, "samples"), format, stdout); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	return runErr
}

func parseClusterFlags(args []string) (clusterFlags, error) {
	var f clusterFlags
	fs := newFlagSet("cluster run")
	fs.StringVar(&f.image, "image", "", "")
	fs.Var(&f.pools, "pool", "")
	fs.StringVar(&f.scenarios, "scenario", "split-2", "")
	fs.StringVar(&f.dataplanes, "dataplane", "", "")
	fs.StringVar(&f.versions, "kube-proxy-version", string(render.LatestKubeProxy), "")
	fs.StringVar(&f.engine, "engine", "", "")
	fs.IntVar(&f.retries, "retries", 1, "")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Hour, "")
	fs.StringVar(&f.namespace, "namespace", "", "")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "")
	fs.StringVar(&f.context, "context", "", "")
	fs.StringVar(&f.out, "out", "", "")
	fs.BoolVar(&f.dryRun, "dry-run", false, "")
	f.format = addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	rest, err := parseFlags(fs, args)
	switch {
	case err != nil:
		return f, err
	case len(rest) > 0:
		return f, usagef("unexpected argument %q (scenarios go in --scenario)", rest[0])
	case f.image == "":
		return f, usagef("give --image (make image builds one; push it where the nodes pull from)")
	case len(f.pools) == 0:
		return f, usagef("give at least one --pool NAME=LABEL=VALUE")
	case f.retries < 0:
		return f, usagef("--retries %d: want 0 or more", f.retries)
	}
	return f, nil
}

// clusterMatrix checks the scenarios (embedded ones only: the pods have
// the image's) and fills the default dataplanes from the first scenario.
func clusterMatrix(f clusterFlags) (cluster.Matrix, error) {
	m := cluster.Matrix{Scenarios: splitList(f.scenarios), Versions: splitList(f.versions), Engine: f.engine, Pools: f.pools}
	embedded := scenario.Names()
	for _, s := range m.Scenarios {
		if !slices.Contains(embedded, s) {
			return m, usagef("--scenario %q: not an embedded scenario (the pods have only those: %s)", s, strings.Join(embedded, ", "))
		}
	}
	m.Dataplanes = splitList(f.dataplanes)
	if len(m.Dataplanes) == 0 && len(m.Scenarios) > 0 {
		sc, err := scenario.Load(m.Scenarios[0])
		if err != nil {
			return m, err
		}
		m.Dataplanes = sc.Dataplanes()
	}
	if err := m.Validate(); err != nil {
		return m, usagef("%v", err)
	}
	return m, nil
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// printJobs prints the Jobs as one YAML stream (kubectl apply -f reads it).
func printJobs(w io.Writer, jobs []*batchv1.Job) error {
	for i, j := range jobs {
		b, err := yaml.Marshal(j)
		if err != nil {
			return fmt.Errorf("job %s as YAML: %w", j.Name, err)
		}
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// kubeconfig is the user's kubeconfig, by client-go's rules (--kubeconfig,
// then $KUBECONFIG, then ~/.kube/config), and the namespace used.
type kubeconfig struct {
	cfg       clientcmd.ClientConfig
	namespace string
}

// loadKubeconfig reads the kubeconfig; the namespace is ns, else the
// context's, else default (a dry run needs no kubeconfig).
func loadKubeconfig(path, context, ns string, dryRun bool) (kubeconfig, error) {
	cfg := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: path, Precedence: clientcmd.NewDefaultClientConfigLoadingRules().Precedence},
		&clientcmd.ConfigOverrides{CurrentContext: context})
	if ns == "" {
		var err error
		if ns, _, err = cfg.Namespace(); err != nil && !dryRun {
			return kubeconfig{}, fmt.Errorf("kubeconfig: %w", err)
		}
		if ns == "" {
			ns = "default"
		}
	}
	return kubeconfig{cfg: cfg, namespace: ns}, nil
}

// client connects with the kubeconfig; instead says what else the user
// can do without one.
func (k kubeconfig) client(instead string) (kubernetes.Interface, error) {
	rc, err := k.cfg.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w (give --kubeconfig FILE, or %s)", err, instead)
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	return client, nil
}
