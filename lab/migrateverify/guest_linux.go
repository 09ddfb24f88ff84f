package migrateverify

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/svclab/svclab/lab/kubeproxy"
	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/migrate"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// GuestCommand is the hidden svclab subcommand a user-mode-linux guest
// runs for a side whose mode this kernel lacks (IPVS): `svclab
// __migrate-verify JOB` (ServeGuest).
const GuestCommand = "__migrate-verify"

// guestTimeout bounds one guest run, boot included.
const guestTimeout = 20 * time.Minute

// guestConnTimeout is the least time a connection in the guest may take
// before it counts as dropped: a user-mode-linux guest on a busy host
// answers several times slower than the host's kernel, and with the host's
// 1 s the first connection of a probe timed out where TCP's SYN
// retransmission (after 1 s) then reached the endpoint.
const guestConnTimeout = 3 * time.Second

// Files of a guest run's shared directory.
const (
	jobFile    = "job.json"
	answerFile = "answer.json"
)

// guestJob is what the guest needs to build the lab and send one side's
// probes: the compared model (its services materialized), the node's
// other addresses, the side, its dataplane, the engine and the probes.
type guestJob struct {
	Cluster     model.Cluster
	Services    model.Slice
	Node        migrate.Node
	Side        migrate.Side
	Dataplane   dataplane.Name
	Engine      string
	Probes      []wireProbe
	Connections int
	Timeout     time.Duration
}

// wireProbe is a probe as the job carries it: its class and whole path
// (Path's own JSON is the report's, without the query's origin and facts).
type wireProbe struct {
	Class         int
	Service, Port string
	Family        model.Family
	Target        migrate.Target
	Client        migrate.Client
	Query         route.Query
	Facts         migrate.Facts
}

// guestAnswer is what the kernel in the guest did with each probe.
type guestAnswer struct {
	Seen   [][]migrate.Observation
	Unsent []string
}

// kernelHasIPVS reports whether this kernel has IPVS (the ip_vs module
// loaded or built in).
func kernelHasIPVS() bool {
	_, err := os.Stat("/proc/net/ip_vs")
	return err == nil
}

// needsGuest reports whether the dataplane called name runs in a
// user-mode-linux guest: it needs IPVS, this kernel has none, and this
// process is not a guest already.
func needsGuest(name dataplane.Name) bool {
	info, ok := dataplane.Lookup(string(name))
	return ok && info.Kernel.Module == "ip_vs" && !kernelHasIPVS() && os.Getenv(uml.GuestEnv) != "1"
}

// runInGuest sends the side's probes from a lab built inside a
// user-mode-linux guest: the job goes into a directory the guest shares,
// this binary runs ServeGuest there, and its answer comes back the same
// way. The guest's process group and directories are held in the lease,
// so `svclab cleanup` ends them should this process die.
func runInGuest(ctx context.Context, r *migrate.Result, side migrate.Side, name dataplane.Name, probes []migrate.Probe, opts Options) ([][]migrate.Observation, []string, error) {
	if _, err := uml.Available(); err != nil {
		return nil, nil, fmt.Errorf("%s needs a kernel with IPVS: %w", name, err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	held, err := labs.Hold()
	if err != nil {
		return nil, nil, fmt.Errorf("migrate --verify: %w", err)
	}
	dir, err := os.MkdirTemp("", labs.Prefix+"-guest-")
	if err != nil {
		return nil, nil, labDropped(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := held.AddDir(dir); err != nil {
		return nil, nil, labDropped(err)
	}
	services, ok := r.Model.Services.(model.Slice)
	if !ok {
		return nil, nil, labDropped(fmt.Errorf("migrate --verify: the compared model's services are a %T, not the model.Slice migrate.Compare makes", r.Model.Services))
	}
	job := guestJob{Cluster: r.Model.Cluster, Services: services, Node: r.Node, Side: side, Dataplane: name,
		Engine: opts.Engine, Probes: probesForGuest(probes), Connections: opts.Connections, Timeout: max(opts.Timeout, guestConnTimeout)}
	if err := writeJSON(filepath.Join(dir, jobFile), job); err != nil {
		return nil, nil, labDropped(err)
	}
	spec := uml.Spec{Binary: self, Args: []string{GuestCommand, filepath.Join(dir, jobFile)}, Env: guestEnv(), WorkDir: dir,
		Stdout: opts.Log, Stderr: opts.Log, Mem: "1536M", Timeout: guestTimeout,
		Started: held.AddStarted}
	res, err := uml.Run(ctx, spec)
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("the guest's svclab exited %d", res.ExitCode)
	}
	if err != nil {
		return nil, nil, labDropped(fmt.Errorf("user-mode-linux guest: %w", err))
	}
	fmt.Fprintf(opts.Log, "svclab migrate --verify: user-mode-linux guest %s: boot %v, run %v\n", res.GuestKernel, res.Boot.Round(time.Millisecond), res.Duration.Round(time.Second))
	var a guestAnswer
	if err := readJSON(filepath.Join(dir, answerFile), &a); err != nil {
		return nil, nil, labDropped(err)
	}
	if len(a.Seen) != len(probes) || len(a.Unsent) != len(probes) {
		return nil, nil, labDropped(fmt.Errorf("the guest answered %d of %d probes", len(a.Seen), len(probes)))
	}
	return a.Seen, a.Unsent, labDropped(nil)
}

// labDropped ends this run's hold on the lease (its directories are
// removed by then) and returns err.
func labDropped(err error) error {
	if derr := labs.Drop(true); err == nil {
		err = derr
	}
	return err
}

// guestEnv passes where the kube-proxy drivers are to the guest's svclab.
func guestEnv() []string {
	if d, ok := os.LookupEnv(kubeproxy.DirEnv); ok {
		return []string{kubeproxy.DirEnv + "=" + d}
	}
	return nil
}

// probesForGuest keeps what the lab reads of each probe: its path (the
// outcomes stay with the host, which judges).
func probesForGuest(probes []migrate.Probe) []wireProbe {
	out := make([]wireProbe, len(probes))
	for i, p := range probes {
		x := p.Path
		out[i] = wireProbe{Class: p.Class, Service: x.Service, Port: x.Port, Family: x.Family, Target: x.Target, Client: x.Client, Query: x.Query, Facts: x.Facts}
	}
	return out
}

// probesOfJob are the job's probes as the lab sends them.
func probesOfJob(wire []wireProbe) []migrate.Probe {
	out := make([]migrate.Probe, len(wire))
	for i, w := range wire {
		out[i] = migrate.Probe{Class: w.Class, Path: migrate.Path{Service: w.Service, Port: w.Port, Family: w.Family, Target: w.Target, Client: w.Client, Query: w.Query, Facts: w.Facts}}
	}
	return out
}

// ServeGuest is the guest half of a side run in a user-mode-linux guest:
// it reads the job at path, builds the lab on the guest's kernel, sends
// the probes, and writes what the kernel did beside the job.
func ServeGuest(ctx context.Context, path string) error {
	var j guestJob
	if err := readJSON(path, &j); err != nil {
		return err
	}
	m := &model.Model{Cluster: j.Cluster, Services: j.Services}
	r := &migrate.Result{Model: m, Node: j.Node}
	opts := Options{Engine: j.Engine, Connections: j.Connections, Timeout: j.Timeout, Log: os.Stderr}.withDefaults()
	seen, unsent, err := runSide(ctx, r, j.Side, j.Dataplane, probesOfJob(j.Probes), opts)
	if err != nil {
		return err
	}
	return writeJSON(filepath.Join(filepath.Dir(path), answerFile), guestAnswer{Seen: seen, Unsent: unsent})
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
