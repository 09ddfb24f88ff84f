// Command kube-proxy-driver runs kube-proxy's own proxier for svclab.
//
//	kube-proxy-driver render < request.json   # no kernel: payload of every sync
//	kube-proxy-driver sync   < request.json   # programs the kernel (run in a netns)
//	kube-proxy-driver loop   < session.jsonl  # kube-proxy's own sync loop over time (run in a netns)
//	kube-proxy-driver version
//
// Standard input holds a kube.Request (sim/kube) in JSON, optionally
// followed by further kube.Step documents, each applied and synced as it
// arrives; standard output gets one kube.Sync JSON line per sync. loop
// reads a kube.LoopRequest and then a stream of kube.LoopEvent lines, and
// writes kube.LoopOutput lines (sim/kube/loop.go). See kubeproxy/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/klog/v2"

	"github.com/svclab/svclab/kubeproxy/driver"
)

func main() {
	klog.InitFlags(nil)
	in := flag.String("in", "-", "request file (- for stdin)")
	variant := flag.String("iptables", "", "sync and loop modes: iptables variant kube-proxy runs, legacy or nft (default: the system's)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: kube-proxy-driver [-in FILE] [-iptables legacy|nft] [-v N] render|sync|loop|version")
		flag.PrintDefaults()
	}
	_ = flag.Set("logtostderr", "true")
	_ = flag.Set("v", "0")
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	switch cmd := flag.Arg(0); cmd {
	case "version":
		fmt.Println(driver.Version())
	case "render", "sync", "loop":
		if err := run(*in, *variant, cmd); err != nil {
			fmt.Fprintln(os.Stderr, "kube-proxy-driver:", err)
			os.Exit(1)
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
}

func run(in, variant, cmd string) error {
	if cmd != "render" {
		cleanup, err := driver.UseIPTables(variant)
		if err != nil {
			return err
		}
		defer cleanup()
	}
	r := io.Reader(os.Stdin)
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	if cmd == "loop" {
		return driver.ServeLoop(context.Background(), r, os.Stdout)
	}
	return driver.Serve(context.Background(), r, os.Stdout, cmd == "render")
}
