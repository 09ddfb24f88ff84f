package apply

import (
	"bufio"
	"fmt"
	"io"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/netns"
)

// NATWatch counts new connections to one service address by where the
// kernel's NAT sent them, from the node's conntrack NEW events (`conntrack
// -E -e NEW`). It is a kernel-side witness of a split that needs no counter
// in the rules, and unlike a table listing it sees every connection, even
// when a client port is reused and replaces an earlier entry.
type NATWatch struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	counts map[string]uint64
	done   chan error
}

// eventBuffer is the netlink receive buffer asked of conntrack, large enough
// for bursts of thousands of new connections per second.
const eventBuffer = 64 << 20

// WatchNAT starts counting NEW events for vip/proto in namespace nsName.
func WatchNAT(nsName string, vip netip.AddrPort, proto string) (*NATWatch, error) {
	cmd := exec.Command("conntrack", "-E", "-e", "NEW", "-b", strconv.Itoa(eventBuffer), "-p", proto,
		"--orig-dst", vip.Addr().String(), "--dport", strconv.Itoa(int(vip.Port())))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := netns.Start(nsName, cmd); err != nil {
		return nil, err
	}
	w := &NATWatch{cmd: cmd, counts: map[string]uint64{}, done: make(chan error, 1)}
	go w.read(out)
	time.Sleep(50 * time.Millisecond) // let conntrack subscribe before traffic starts
	return w, nil
}

func (w *NATWatch) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if ep, ok := replySource(sc.Text()); ok {
			w.mu.Lock()
			w.counts[ep]++
			w.mu.Unlock()
		}
	}
	w.done <- sc.Err()
}

// Stop waits briefly for the last events, stops conntrack and returns the
// counts per "IP:port".
func (w *NATWatch) Stop() (map[string]uint64, error) {
	time.Sleep(200 * time.Millisecond)
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-w.done:
		_ = w.cmd.Wait()
		if err != nil {
			return nil, fmt.Errorf("read conntrack events: %w", err)
		}
	case <-time.After(5 * time.Second):
		_ = w.cmd.Process.Kill()
		_ = w.cmd.Wait()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts, nil
}

// replySource reads the reply direction's "src=IP ... sport=P" of one
// conntrack line: the second src= and the second sport=.
func replySource(line string) (string, bool) {
	var srcs, sports []string
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "src="); ok {
			srcs = append(srcs, v)
		} else if v, ok := strings.CutPrefix(f, "sport="); ok {
			sports = append(sports, v)
		}
	}
	if len(srcs) < 2 || len(sports) < 2 {
		return "", false
	}
	return srcs[1] + ":" + sports[1], true
}
