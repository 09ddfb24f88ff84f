package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/lab/topo"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "up", summary: "build a lab, program it and leave it running to explore", usage: upUsage, run: runUp})
	register(&command{name: "__lab-daemon", summary: "serve a lab for svclab up", usage: "internal\n", run: runLabDaemon, hidden: true})
}

const upUsage = `Usage: svclab up SCENARIO [--dataplane D] [--json]

Builds the scenario's lab, programs one dataplane and leaves it running, with
the pods' servers answering, so you can explore it with your own tools. A
background svclab process serves the pods until 'svclab down RUN'. Needs root.

Options:
  --dataplane D   iptables-legacy, iptables-nft (default) or nftables
  --json          print {"run", "node_netns", "client_netns", "services": [...]}

Examples:
  sudo svclab up split-2
  sudo ip netns exec svl-3f9a-cli curl -s http://10.96.0.10/
  sudo ip netns exec svl-3f9a-node iptables-nft -t nat -vnL KUBE-SERVICES
  sudo svclab down svl-3f9a
`

func runUp(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("up")
	dataplane := fs.String("dataplane", "iptables-nft", "")
	asJSON := fs.Bool("json", false, "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("give exactly one scenario")
	}
	sc, err := scenario.Load(rest[0])
	if err != nil {
		return err
	}
	if !contains([]string{"iptables-legacy", "iptables-nft", "nftables"}, *dataplane) {
		return usagef("--dataplane %q: want iptables-legacy, iptables-nft or nftables", *dataplane)
	}
	if sc, err = sc.WithFairness(*dataplane); err != nil {
		return err
	}
	if err := preflightFor(sc); err != nil {
		return err
	}
	st, err := startDaemon(rest[0], *dataplane)
	if err != nil {
		return err
	}
	return printUp(st, *asJSON, stdout)
}

// startDaemon starts a detached `svclab __lab-daemon` and waits until it has
// written the lab's state (or died).
func startDaemon(scenarioArg, dataplane string) (runner.UpState, error) {
	prefix := topo.NewPrefix()
	if err := os.MkdirAll(runner.StateDir, 0o755); err != nil {
		return runner.UpState{}, err
	}
	logPath := filepath.Join(runner.StateDir, prefix+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return runner.UpState{}, err
	}
	defer logFile.Close()
	self, err := os.Executable()
	if err != nil {
		return runner.UpState{}, err
	}
	cmd := exec.Command(self, "__lab-daemon", "--dataplane", dataplane, "--prefix", prefix, scenarioArg)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return runner.UpState{}, fmt.Errorf("start the lab daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); {
		if st, err := runner.LoadState(prefix); err == nil {
			return st, nil
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logPath)
			return runner.UpState{}, fmt.Errorf("the lab daemon exited (%v):\n%s", err, log)
		case <-time.After(100 * time.Millisecond):
		}
	}
	_ = cmd.Process.Kill()
	_, _ = topo.Cleanup(prefix)
	return runner.UpState{}, fmt.Errorf("the lab daemon did not come up within 2 minutes (log: %s)", logPath)
}

func printUp(st runner.UpState, asJSON bool, w io.Writer) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(w, "lab %s is up (%s on scenario %s, served by pid %d)\n\n", st.Run, st.Dataplane, st.Scenario, st.PID)
	fmt.Fprintf(w, "node (the rules):   sudo ip netns exec %s bash\n", st.NodeNetns)
	fmt.Fprintf(w, "client pod:         sudo ip netns exec %s bash\n", st.ClientNetns)
	for pod, ns := range st.PodNetns {
		fmt.Fprintf(w, "pod %-14s  sudo ip netns exec %s bash\n", pod+":", ns)
	}
	fmt.Fprintln(w, "\nservices:")
	for _, s := range st.Services {
		fmt.Fprintf(w, "  %s  %s\n", s.Name, s.Describe())
		fmt.Fprintf(w, "    sudo ip netns exec %s curl -s http://%s:%d/\n", st.ClientNetns, s.ClusterIP, s.Port)
	}
	fmt.Fprintf(w, "\nrules:   sudo ip netns exec %s iptables-nft -t nat -vnL KUBE-SERVICES   (or nft list ruleset)\n", st.NodeNetns)
	fmt.Fprintf(w, "flows:   sudo ip netns exec %s conntrack -L\n", st.NodeNetns)
	fmt.Fprintf(w, "remove:  sudo svclab down %s\n", st.Run)
	return nil
}

// runLabDaemon builds the lab, records its state, and serves it until
// SIGTERM/SIGINT, then tears it down.
func runLabDaemon(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("__lab-daemon")
	dataplane := fs.String("dataplane", "iptables-nft", "")
	prefix := fs.String("prefix", "", "")
	rest, err := parseFlags(fs, args)
	if err != nil || len(rest) != 1 || *prefix == "" {
		return usagef("internal command: bad arguments")
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	sc, err := scenario.Load(rest[0])
	if err != nil {
		return err
	}
	lab, st, err := runner.Up(sc, *dataplane, *prefix)
	if err != nil {
		return err
	}
	defer runner.RemoveState(st.Run)
	defer lab.Close()
	if err := runner.SaveState(st); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lab %s up\n", st.Run)
	s := <-sigs
	fmt.Fprintf(stdout, "lab %s: %v, tearing down\n", st.Run, s)
	return nil
}
