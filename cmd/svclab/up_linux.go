package main

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/svclab/svclab/lab/runner"
	"github.com/svclab/svclab/lab/session"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/scenario"
)

func init() {
	register(&command{name: "up", summary: "build a lab, program it and leave it running to explore", usage: withVersions(upUsage), run: runUp})
	register(&command{name: session.DaemonCommand, summary: "serve a lab for svclab up", usage: "internal\n", run: runLabDaemon, hidden: true})
}

const upUsage = `Usage: svclab up SCENARIO [--dataplane D] [--engine E] [--kube-proxy-version V] [--format F]

Builds the scenario's lab, programs one dataplane and leaves it running, with
the pods' servers answering, so you can explore it with your own tools. A
background svclab process serves the pods until 'svclab down RUN'. Needs root.

Options:
  --dataplane D   iptables-legacy, iptables-nft (default) or nftables
  --engine E      native (svclab's renderer) or kube-proxy (kube-proxy's own proxier
                  programs the node and keeps running with the lab; make kube-proxy)
  --kube-proxy-version V   VERSIONS (default the scenario's, else the newest)
  --format text|markdown|json (--json: --format json)
                  json prints {"run", "node_netns", "client_netns", "services": [...]}

Examples:
  sudo svclab up split-2
  sudo ip netns exec svl-3f9a-cli curl -s http://10.96.0.10/
  sudo ip netns exec svl-3f9a-node iptables-nft -t nat -vnL KUBE-SERVICES
  sudo svclab down svl-3f9a
  sudo svclab up split-2 --dataplane nftables --engine kube-proxy --kube-proxy-version 1.35
`

func runUp(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("up")
	dataplane := fs.String("dataplane", string(dataplane.Default), "")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	engine := fs.String("engine", "", "")
	version := fs.String("kube-proxy-version", "", "")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("give exactly one scenario")
	}
	if !slices.Contains(session.UpDataplanes, *dataplane) {
		return usagef("--dataplane %q: want %s", *dataplane, strings.Join(session.UpDataplanes, ", "))
	}
	sc, err := scenario.Load(rest[0])
	if err != nil {
		return err
	}
	if _, err := sc.WithKubeProxy(*engine, *version); err != nil {
		return usagef("--engine %q --kube-proxy-version %q: %v", *engine, *version, err)
	}
	st, err := session.StartUp(rest[0], *dataplane, "--engine", *engine, "--kube-proxy-version", *version)
	if err != nil {
		return err
	}
	return printResult(stdout, format.value, "svclab up "+st.Run, st, func(w io.Writer) error { return printUp(st, w) })
}

func printUp(st session.UpState, w io.Writer) error {
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

// runLabDaemon serves an `up` lab until SIGTERM or SIGINT, then tears it down.
func runLabDaemon(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(session.DaemonCommand)
	dataplane := fs.String("dataplane", string(dataplane.Default), "")
	prefix := fs.String("prefix", "", "")
	engine := fs.String("engine", "", "")
	version := fs.String("kube-proxy-version", "", "")
	rest, err := parseFlags(fs, args)
	if err != nil || len(rest) != 1 || *prefix == "" {
		return usagef("internal command: bad arguments")
	}
	sc, err := scenario.Load(rest[0])
	if err != nil {
		return err
	}
	if sc, err = sc.WithKubeProxy(*engine, *version); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return runner.ServeUp(ctx, sc, *dataplane, *prefix, func(st session.UpState) {
		fmt.Fprintf(stdout, "lab %s up\n", st.Run)
	})
}
