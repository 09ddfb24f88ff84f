// Command kube-proxy-driver runs kube-proxy's own proxier for svclab.
//
//	kube-proxy-driver render < request.json   # no kernel: payload of every sync
//	kube-proxy-driver sync   < request.json   # programs the kernel (run in a netns)
//	kube-proxy-driver version
//
// The request is a kube.Request (sim/kube) in JSON; the answer is one
// kube.Sync JSON line per sync. See kubeproxy/README.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/klog/v2"

	"github.com/svclab/svclab/kubeproxy/driver"
	"github.com/svclab/svclab/sim/kube"
)

func main() {
	klog.InitFlags(nil)
	in := flag.String("in", "-", "request file (- for stdin)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: kube-proxy-driver [-in FILE] [-v N] render|sync|version")
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
	case "render", "sync":
		if err := run(*in, cmd == "render", os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "kube-proxy-driver:", err)
			os.Exit(1)
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
}

func run(in string, render bool, w io.Writer) error {
	r := io.Reader(os.Stdin)
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	var req kube.Request
	if err := json.NewDecoder(bufio.NewReader(r)).Decode(&req); err != nil {
		return fmt.Errorf("request: %w", err)
	}
	out := bufio.NewWriter(w)
	defer out.Flush()
	enc := json.NewEncoder(out)
	return driver.Run(context.Background(), &req, render, func(s kube.Sync) error {
		if err := enc.Encode(s); err != nil {
			return err
		}
		return out.Flush()
	})
}
