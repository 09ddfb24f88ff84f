package verifytrace

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/svclab/svclab/lab/lease"
	"github.com/svclab/svclab/lab/netns"
)

// traceTable is the table verify-trace adds to the node to set nftrace on
// every packet of the dump's family before any of the dump's chains
// (priority -350): table ip svl-trace, or ip6 svl-trace for an IPv6 dump.
func traceTable(m Meta) string {
	return "table " + traceFamily(m) + ` svl-trace {
	chain pre { type filter hook prerouting priority -350; policy accept; meta nftrace set 1; }
	chain out { type filter hook output priority -350; policy accept; meta nftrace set 1; }
}
`
}

// traceFamily is the nftables family of the dump's packets.
func traceFamily(m Meta) string {
	if m.IPv6 {
		return "ip6"
	}
	return "ip"
}

// monitor reads `nft monitor trace` in the node namespace (line-buffered
// with stdbuf: nft writes to a pipe through stdio).
type monitor struct {
	cmd    *exec.Cmd
	lines  chan string
	byID   map[string]uint16 // trace id → the packet's IP id
	events map[uint16][]traceEvent
}

// traceEvent is a rule that matched, or a chain policy, for one packet.
type traceEvent struct {
	table, chain string
	handle       int    // 0 for a policy
	verdict      string // "accept", "drop", "continue", "jump", ...
}

// startMonitor starts `nft monitor trace` in ns. It dies with svclab
// (Pdeathsig), however svclab dies, and the lease records it.
func startMonitor(ns string, l *lease.Lease) (*monitor, error) {
	m := &monitor{cmd: exec.Command("stdbuf", "-oL", "nft", "-a", "monitor", "trace"), lines: make(chan string, 4096), byID: map[string]uint16{}, events: map[uint16][]traceEvent{}}
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := m.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("nft monitor trace in netns %s: %w", ns, err)
	}
	if err := netns.Start(ns, m.cmd); err != nil {
		return nil, err
	}
	if err := l.AddProcess(m.cmd.Process.Pid, false); err != nil {
		m.stop()
		return nil, fmt.Errorf("nft monitor trace in netns %s: %w", ns, err)
	}
	go m.read(out)
	return m, nil
}

func (m *monitor) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m.lines <- sc.Text()
	}
	close(m.lines)
}

func (m *monitor) stop() {
	_ = m.cmd.Process.Kill()
	_ = m.cmd.Wait()
}

var (
	packetLine = regexp.MustCompile(`^trace id (\S+) (\S+ \S+) (\S+) packet: (.*)`)
	// The packet's id: the IPv4 id, or the IPv6 flow label (see ipv6Header).
	packetID   = regexp.MustCompile(`.* ip id (\d+) |.* ip6 flowlabel (\d+) `)
	ruleLine   = regexp.MustCompile(`^trace id (\S+) (\S+ \S+) (\S+) rule .* # handle (\d+) \(verdict (\S+)`)
	policyLine = regexp.MustCompile(`^trace id (\S+) (\S+ \S+) (\S+) policy (\S+)`)
)

// ready sends the marker until its trace shows the monitor is
// subscribed.
func (m *monitor) ready(send func() error) error {
	for range 50 {
		if err := send(); err != nil {
			return err
		}
		deadline := time.After(100 * time.Millisecond)
	wait:
		for {
			select {
			case line, ok := <-m.lines:
				if !ok {
					return fmt.Errorf("nft monitor trace ended")
				}
				if m.parse(line) == markerID {
					m.events = map[uint16][]traceEvent{}
					return nil
				}
			case <-deadline:
				break wait
			}
		}
	}
	return fmt.Errorf("nft monitor trace shows no packets")
}

// waitFor reads events until the packet with IP id marker is seen, and
// returns the events of the packet with IP id id.
func (m *monitor) waitFor(id, marker uint16) ([]traceEvent, error) {
	timeout := time.After(5 * time.Second)
	for {
		select {
		case line, ok := <-m.lines:
			if !ok {
				return nil, fmt.Errorf("nft monitor trace ended")
			}
			if seen := m.parse(line); seen == marker {
				ev := m.events[id]
				delete(m.events, id)
				delete(m.events, marker)
				return ev, nil
			}
		case <-timeout:
			return nil, fmt.Errorf("no trace of the marker packet within 5s")
		}
	}
}

// parse records one line; it returns the IP id (IPv6: the flow label) of
// a "packet:" line (0 otherwise, and for a packet without one: a packet
// verify-trace did not send, whose events are not recorded).
func (m *monitor) parse(line string) uint16 {
	if p := packetLine.FindStringSubmatch(line); p != nil {
		id := packetID.FindStringSubmatch(p[4] + " ")
		n := 0
		if id != nil {
			n, _ = strconv.Atoi(id[1] + id[2])
		}
		m.byID[p[1]] = uint16(n)
		return uint16(n)
	}
	if r := ruleLine.FindStringSubmatch(line); r != nil {
		h, _ := strconv.Atoi(r[4])
		m.add(r[1], traceEvent{table: r[2], chain: r[3], handle: h, verdict: strings.TrimSuffix(r[5], ")")})
	} else if p := policyLine.FindStringSubmatch(line); p != nil {
		m.add(p[1], traceEvent{table: p[2], chain: p[3], verdict: p[4]})
	}
	return 0
}

func (m *monitor) add(traceID string, e traceEvent) {
	if e.table == "ip svl-trace" || e.table == "ip6 svl-trace" {
		return
	}
	if id, ok := m.byID[traceID]; ok && id != 0 {
		m.events[id] = append(m.events[id], e)
	}
}

// ruleHandles maps "family table chain handle" to the rule's 1-based
// position, from `nft -a list ruleset`.
func ruleHandles(ns string) (map[string]int, error) {
	out, err := netns.Output(ns, nil, "nft", "-a", "list", "ruleset")
	if err != nil {
		return nil, err
	}
	handles := map[string]int{}
	var table, chain string
	var stack []string // open blocks: "table", "chain", "set", ...
	pos := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "table" && strings.Contains(line, "{"):
			table, stack = f[1]+" "+f[2], append(stack, "table")
		case len(f) >= 2 && f[0] == "chain" && strings.Contains(line, "{"):
			chain, pos, stack = f[1], 0, append(stack, "chain")
		case len(f) >= 2 && strings.Contains(line, "{") && !strings.Contains(line, "}") && (f[0] == "set" || f[0] == "map" || f[0] == "flowtable" || f[0] == "ct" || f[0] == "counter" || f[0] == "quota"):
			stack = append(stack, f[0])
		case len(f) >= 1 && f[0] == "}" && len(stack) > 0:
			stack = stack[:len(stack)-1]
		case len(stack) > 0 && stack[len(stack)-1] == "chain" && len(f) >= 3 && f[len(f)-2] == "handle" && f[len(f)-3] == "#":
			pos++
			h, _ := strconv.Atoi(f[len(f)-1])
			handles[fmt.Sprintf("%s %s %d", table, chain, h)] = pos
		}
	}
	return handles, nil
}
