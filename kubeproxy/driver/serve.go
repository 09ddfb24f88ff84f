package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/svclab/svclab/sim/kube"
)

// Serve reads a kube.Request and then any further kube.Step documents
// from r, and writes one kube.Sync JSON line per sync to w, flushed after
// each, until r ends.
func Serve(ctx context.Context, r io.Reader, w io.Writer, render bool) error {
	dec := json.NewDecoder(bufio.NewReader(r))
	var req kube.Request
	if err := dec.Decode(&req); err != nil {
		return fmt.Errorf("request: %w", err)
	}
	next := func() (*kube.Step, error) {
		var st kube.Step
		if err := dec.Decode(&st); err == io.EOF {
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("step: %w", err)
		}
		return &st, nil
	}
	write := jsonLines(w)
	return Run(ctx, &req, render, next, func(s kube.Sync) error { return write(s) })
}

// ServeLoop runs a loop session (sim/kube/loop.go): it reads a
// kube.LoopRequest and then kube.LoopEvent documents from r, applying each
// as it arrives, and writes one kube.LoopOutput JSON line per sync and per
// metrics snapshot to w, flushed after each, until r ends or a stop event.
func ServeLoop(ctx context.Context, r io.Reader, w io.Writer) error {
	dec := json.NewDecoder(bufio.NewReader(r))
	var req kube.LoopRequest
	if err := dec.Decode(&req); err != nil {
		return fmt.Errorf("loop request: %w", err)
	}
	events := 0
	next := func() (*kube.LoopEvent, error) {
		var ev kube.LoopEvent
		if err := dec.Decode(&ev); err == io.EOF {
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("loop event %d: %w", events, err)
		}
		events++
		return &ev, nil
	}
	write := jsonLines(w)
	return RunLoop(ctx, &req, next, func(o kube.LoopOutput) error { return write(o) })
}

// jsonLines returns a function that writes each value to w as one JSON
// line, flushed at once.
func jsonLines(w io.Writer) func(any) error {
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	return func(v any) error {
		if err := enc.Encode(v); err != nil {
			return err
		}
		return out.Flush()
	}
}

// UseIPTables makes kube-proxy's "iptables" commands the given variant
// ("legacy" or "nft"; "" keeps the system's choice) by putting a directory
// of symlinks (iptables → iptables-legacy, …) first in PATH. The returned
// function removes the directory.
func UseIPTables(variant string) (func(), error) {
	if variant == "" {
		return func() {}, nil
	}
	if variant != "legacy" && variant != "nft" {
		return nil, fmt.Errorf("iptables variant %q: want legacy or nft", variant)
	}
	dir, err := os.MkdirTemp("", "svclab-iptables-"+variant+"-")
	if err != nil {
		return nil, fmt.Errorf("iptables variant %s: %w", variant, err)
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	for _, family := range []string{"iptables", "ip6tables"} {
		for _, suffix := range []string{"", "-save", "-restore"} {
			path, err := exec.LookPath(family + "-" + variant + suffix)
			if err == nil {
				err = os.Symlink(path, filepath.Join(dir, family+suffix))
			}
			if err != nil {
				cleanup()
				return nil, fmt.Errorf("iptables variant %s: %w", variant, err)
			}
		}
	}
	if err := os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH")); err != nil {
		cleanup()
		return nil, err
	}
	return cleanup, nil
}
