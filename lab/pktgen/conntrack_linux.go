package pktgen

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/svclab/svclab/lab/netns"
)

// FlushConntrackIn returns a Spec.FlushConntrack hook that deletes every
// conntrack entry of namespace netnsName over netlink, like `conntrack -F`.
func FlushConntrackIn(netnsName string) func() error {
	return func() error { return netns.FlushConntrack(netnsName) }
}

// Conntrack is the fill of one namespace's conntrack table.
type Conntrack struct {
	// Count is nf_conntrack_count: the entries in the namespace's table.
	Count int
	// Max is nf_conntrack_max: the entries a table may hold before new
	// connections are dropped.
	Max int
}

// Free is the number of new entries the table still takes.
func (c Conntrack) Free() int { return max(0, c.Max-c.Count) }

// ConntrackUsage reads nf_conntrack_count and nf_conntrack_max as namespace
// netnsName sees them. The files exist once conntrack is in use there (a
// nat rule is enough).
func ConntrackUsage(netnsName string) (Conntrack, error) {
	var c Conntrack
	err := netns.Do(netnsName, func() error {
		var err error
		if c.Count, err = readSysctlInt("/proc/sys/net/netfilter/nf_conntrack_count"); err != nil {
			return err
		}
		c.Max, err = readSysctlInt("/proc/sys/net/netfilter/nf_conntrack_max")
		return err
	})
	if err != nil {
		return Conntrack{}, fmt.Errorf("conntrack usage in netns %s: %w", netnsName, err)
	}
	return c, nil
}

// readSysctlInt reads one integer from a /proc/sys file.
func readSysctlInt(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", path, err)
	}
	return n, nil
}

// checkConntrack reads the node's conntrack fill before a Measure run and
// warns when one conntrack epoch (FlushEvery packets, or the largest step
// without a flush hook) could overflow the table.
func (m *measurement) checkConntrack() error {
	if m.spec.ConntrackNetns == "" {
		return nil
	}
	usage, err := ConntrackUsage(m.spec.ConntrackNetns)
	if err != nil {
		return err
	}
	m.rate.Conntrack, m.rate.ConntrackPeak = usage, usage.Count
	epoch := m.spec.Blast.FlushEvery
	if m.spec.Blast.FlushConntrack == nil {
		epoch = int(m.spec.MaxRate * m.spec.StepDuration.Seconds())
	}
	if epoch > usage.Free() {
		m.rate.ConntrackWarning = fmt.Sprintf("conntrack in netns %s holds %d of %d entries and a blast may add %d: the table could fill and drop new flows",
			m.spec.ConntrackNetns, usage.Count, usage.Max, epoch)
	}
	return nil
}

// watchConntrack records the node's conntrack count after a step and warns
// when it came within 10% of the maximum.
func (m *measurement) watchConntrack() error {
	if m.spec.ConntrackNetns == "" {
		return nil
	}
	usage, err := ConntrackUsage(m.spec.ConntrackNetns)
	if err != nil {
		return err
	}
	m.rate.ConntrackPeak = max(m.rate.ConntrackPeak, usage.Count)
	if usage.Count*10 >= usage.Max*9 && m.rate.ConntrackWarning == "" {
		m.rate.ConntrackWarning = fmt.Sprintf("conntrack in netns %s reached %d of %d entries: new flows may have been dropped",
			m.spec.ConntrackNetns, usage.Count, usage.Max)
	}
	return nil
}
