package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"

	labcluster "github.com/svclab/svclab/lab/cluster"
	"github.com/svclab/svclab/sim/cluster"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
)

const clusterAuditUsage = `
svclab cluster audit: svclab audit on every node, as a DaemonSet.

Lists the cluster's Services, EndpointSlices and Nodes (or reads --objects),
puts them gzipped in a ConfigMap, and runs a DaemonSet of privileged pods in
each node's own network namespace (hostNetwork, every taint tolerated), each
running 'svclab audit --live' of its node against the objects and printing
its report in its log. The command reads each node's report once, shows
progress (N of M nodes), deletes the DaemonSet, its pods and the ConfigMap
(on success, failure, timeout and Ctrl-C) and prints a summary by node
(mode, version, findings by kind, Services affected) and each node's
findings. Nodes that did not report by --timeout are named with why (the
pod's phase, its container's state and reason).

Your kubeconfig needs: create, get, list, delete and deletecollection of
daemonsets (apps) and configmaps, and of pods (list, delete,
deletecollection), get pods/log, and list services, endpointslices
(discovery.k8s.io) and nodes (not with --objects); the namespace must admit
privileged, hostNetwork pods. The pods get no API access (no service
account token): the objects come in the ConfigMap (at most 1 MiB gzipped).

Options:
  --image IMAGE            the svclab image (make image builds it)
  --mode M                 the nodes' kube-proxy mode: iptables, nftables or ipvs
                           (one mode per run: audit pools of other modes with --node-selector)
  --kube-proxy-version V   the nodes' kube-proxy: VERSIONS (default the newest)
  --iptables-backend B     legacy or nft: the nodes' iptables (default the image's, nft)
  --node-selector SEL      LABEL=VALUE[,LABEL=VALUE]: the nodes audited (default every node)
  --objects FILE           the objects (kubectl get services,endpointslices,nodes -A -o yaml)
                           instead of listing them through the API server
  --timeout D              how long to wait for every node's report (default 10m)
  --namespace NS           (default the kubeconfig context's, else default)
  --kubeconfig FILE, --context NAME
  --dry-run                print the ConfigMap (objects elided) and the DaemonSet as YAML
  --format text|markdown|json  (default text; --json is an alias)

Exit status: 0 every node holds exactly kube-proxy's rules; 1 a node has
findings, its audit failed, or it did not report; 2 bad input (including
no node matching --node-selector); 130 interrupted (everything deleted).

Examples:
  svclab cluster audit --dry-run --image registry.example/svclab:v1 --mode nftables --objects cluster.yaml
  svclab cluster audit --image registry.example/svclab:v1 --mode iptables --kube-proxy-version 1.36
  svclab cluster audit --image registry.example/svclab:v1 --mode ipvs --node-selector pool=gen5 --json
`

type clusterAuditFlags struct {
	image, mode, version, backend, selector string
	objects, namespace, kubeconfig, context string
	timeout                                 time.Duration
	dryRun                                  bool
	format                                  *formatFlag
}

func runClusterAudit(args []string, stdout, stderr io.Writer) error {
	f, o, err := parseClusterAuditFlags(args)
	if err != nil {
		return err
	}
	o.RunID = time.Now().UTC().Format("20060102-150405")
	kc, err := loadKubeconfig(f.kubeconfig, f.context, f.namespace, f.dryRun)
	if err != nil {
		return err
	}
	o.Namespace = kc.namespace
	var client kubernetes.Interface
	if !f.dryRun || f.objects == "" {
		if client, err = kc.client("--objects FILE with --dry-run to print the manifests"); err != nil {
			return err
		}
	}
	raw, what, err := auditObjects(client, f.objects)
	if err != nil {
		return err
	}
	cm, err := cluster.AuditConfigMap(raw, o)
	if err != nil {
		return usagef("%v", err)
	}
	ds, err := cluster.AuditDaemonSet(o)
	if err != nil {
		return usagef("%v", err)
	}
	if f.dryRun {
		return cluster.WriteAuditManifests(stdout, cm, ds, what)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &labcluster.AuditRunner{Target: labcluster.Target{Client: client, Namespace: o.Namespace, RunID: o.RunID, Progress: stderr}, Timeout: f.timeout}
	nodes, runErr := r.Run(ctx, cm, ds)
	return finishClusterAudit(ctx, nodes, runErr, string(f.format.value), stdout)
}

func parseClusterAuditFlags(args []string) (clusterAuditFlags, cluster.AuditOptions, error) {
	var f clusterAuditFlags
	fs := newFlagSet("cluster audit")
	for _, s := range []struct {
		p    *string
		name string
	}{{&f.image, "image"}, {&f.mode, "mode"}, {&f.version, "kube-proxy-version"}, {&f.backend, "iptables-backend"},
		{&f.selector, "node-selector"}, {&f.objects, "objects"}, {&f.namespace, "namespace"}, {&f.kubeconfig, "kubeconfig"}, {&f.context, "context"}} {
		fs.StringVar(s.p, s.name, "", "")
	}
	fs.DurationVar(&f.timeout, "timeout", labcluster.DefaultAuditTimeout, "")
	fs.BoolVar(&f.dryRun, "dry-run", false, "")
	f.format = addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	o := cluster.AuditOptions{Image: f.image}
	rest, err := parseFlags(fs, args)
	switch {
	case err != nil:
		return f, o, err
	case len(rest) > 0:
		return f, o, usagef("unexpected argument %q", rest[0])
	case f.image == "":
		return f, o, usagef("give --image (make image builds one; push it where the nodes pull from)")
	case f.mode == "auto" || f.mode == "":
		return f, o, usagef("give --mode (%v): the nodes' kube-proxy mode is not detected", dataplane.Modes())
	case !validMode(dataplane.Mode(f.mode)):
		return f, o, usagef("--mode %q: want one of %v", f.mode, dataplane.Modes())
	case f.backend != "" && f.backend != "legacy" && f.backend != "nft":
		return f, o, usagef("--iptables-backend %q: want legacy or nft", f.backend)
	case f.timeout <= 0:
		return f, o, usagef("--timeout %v: want a positive duration", f.timeout)
	}
	if _, err := render.ParseKubeProxyVersion(f.version); err != nil {
		return f, o, usagef("--kube-proxy-version: %v", err)
	}
	sel, err := cluster.ParseSelector(f.selector)
	if err != nil {
		return f, o, usagef("--node-selector: %v", err)
	}
	o = cluster.AuditOptions{Image: f.image, Mode: f.mode, Version: f.version, IPTablesBackend: f.backend, NodeSelector: sel}
	return f, o, nil
}

// auditObjects reads --objects, or lists the objects through the API
// server, and checks svclab audit reads them; what counts them.
func auditObjects(client kubernetes.Interface, file string) (raw []byte, what string, err error) {
	name := "the cluster's objects"
	if file != "" {
		if name, raw, err = readObjects(file); err != nil {
			return nil, "", err
		}
	} else if raw, err = labcluster.ClusterObjects(context.Background(), client); err != nil {
		return nil, "", err
	}
	o, err := objects.Decode(name, raw)
	if err != nil {
		return nil, "", err
	}
	return raw, fmt.Sprintf("%d Services, %d EndpointSlices, %d Nodes", len(o.KubeServices), len(o.Slices), len(o.KubeNodes)), nil
}

// finishClusterAudit prints the summary by node (also when nodes did not
// report, or the cleanup failed after the reports came) and maps the
// outcome to the exit status.
func finishClusterAudit(ctx context.Context, nodes []cluster.NodeResult, runErr error, format string, stdout io.Writer) error {
	switch {
	case ctx.Err() != nil:
		return &exitError{code: 130, msg: "interrupted; the DaemonSet, its pods and the ConfigMap were deleted"}
	case errors.Is(runErr, labcluster.ErrNoNodes):
		return usagef("%v (check --node-selector)", runErr)
	}
	s := cluster.Summarize(nodes)
	if len(nodes) > 0 || runErr == nil {
		if err := s.Write(stdout, format); err != nil {
			return errors.Join(runErr, err)
		}
	}
	switch {
	case runErr != nil:
		return &exitError{code: 1, msg: runErr.Error()}
	case !s.Clean:
		return &exitError{code: 1}
	}
	return nil
}
