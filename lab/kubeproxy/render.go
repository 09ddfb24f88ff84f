package kubeproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/svclab/svclab/sim/kube"
)

// Render runs the driver at bin in render mode on req and returns every
// sync's report: the first full sync, then one per step.
func Render(ctx context.Context, bin string, req *kube.Request) ([]kube.Sync, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("kube-proxy render request: %w", err)
	}
	cmd := exec.CommandContext(ctx, bin, "render")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// The reports are read as the driver writes them, not buffered whole
	// first (a 5,000-Service payload is tens of MB).
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s render (%s mode): %w", bin, req.Mode, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s render (%s mode): %w", bin, req.Mode, err)
	}
	syncs, readErr := ReadSyncs(stdout)
	if readErr != nil {
		_, _ = io.Copy(io.Discard, stdout)
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("%s render (%s mode): %w: %s", bin, req.Mode, err, strings.TrimSpace(stderr.String()))
	}
	if readErr != nil {
		return nil, fmt.Errorf("%s render (%s mode): %w", bin, req.Mode, readErr)
	}
	if want := 1 + len(req.Steps); len(syncs) != want {
		return nil, fmt.Errorf("%s render (%s mode): %d syncs reported, want %d", bin, req.Mode, len(syncs), want)
	}
	return syncs, nil
}

// ReadSyncs reads the driver's JSON lines until r ends.
func ReadSyncs(r io.Reader) ([]kube.Sync, error) {
	var out []kube.Sync
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var s kube.Sync
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("sync report %d: %w", len(out), err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}
