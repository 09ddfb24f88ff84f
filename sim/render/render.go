// Package render holds what svclab's renderers share: the counting writer
// that measures a payload as it streams out, the statistics every renderer
// reports, and KubeProxyVersion, the kube-proxy release whose rules they
// write. The renderers themselves live in the subpackages
// iptables, nftables and ipvs; each produces the exact bytes that
// kube-proxy's mode would hand to the kernel tools.
package render

import (
	"bufio"
	"io"
)

// Stats describes a rendered payload.
type Stats struct {
	Lines  int `json:"lines"`
	Bytes  int `json:"bytes"`
	Rules  int `json:"rules"`  // rules (iptables -A lines, nft rules, or IPVS real+virtual servers)
	Chains int `json:"chains"` // chains (or IPVS virtual servers)
	Sets   int `json:"sets,omitempty"`
	// Elements counts map/set elements (nftables) or ipset members (ipvs).
	Elements int `json:"elements,omitempty"`
}

// Writer buffers output and counts the lines and bytes that pass through.
// Renderers write whole lines to it; Flush must be called at the end.
type Writer struct {
	bw    *bufio.Writer
	stats Stats
	err   error
}

// writerBuffer is the Writer's buffer size: large enough that a pipe to
// iptables-restore or nft gets few writes, small enough that rendering a
// small cluster does not spend its time zeroing the buffer (a 1 MiB buffer
// took 17% of the conformance suite's CPU, which renders thousands of them).
const writerBuffer = 64 << 10

// NewWriter wraps w with a 64 KiB buffer.
func NewWriter(w io.Writer) *Writer { return &Writer{bw: bufio.NewWriterSize(w, writerBuffer)} }

// Line writes the given parts followed by a newline. The first write error
// sticks and is returned by Flush.
func (w *Writer) Line(parts ...string) {
	if w.err != nil {
		return
	}
	for _, p := range parts {
		n, err := w.bw.WriteString(p)
		w.stats.Bytes += n
		if err != nil {
			w.err = err
			return
		}
	}
	if err := w.bw.WriteByte('\n'); err != nil {
		w.err = err
		return
	}
	w.stats.Bytes++
	w.stats.Lines++
}

// CountRule records that a rule was written.
func (w *Writer) CountRule() { w.stats.Rules++ }

// CountChain records that a chain (or IPVS virtual server) was written.
func (w *Writer) CountChain() { w.stats.Chains++ }

// CountSet records that a set or map was written.
func (w *Writer) CountSet() { w.stats.Sets++ }

// CountElements records n set elements (or ipset members) written.
func (w *Writer) CountElements(n int) { w.stats.Elements += n }

// Flush writes out the buffer and returns the statistics and the first error.
func (w *Writer) Flush() (Stats, error) {
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	return w.stats, w.err
}

// FamilyHeader is the comment line that precedes each family's payload
// when one output holds the payloads of both of a dual-stack node's
// proxiers (iptables-restore, ip6tables-restore and nft -f all skip it):
// "# svclab: IPv6 proxier (ip6tables-restore input in iptables mode)".
func FamilyHeader(family string) string {
	tool := "iptables-restore"
	if family == "IPv6" {
		tool = "ip6tables-restore"
	}
	return "# svclab: " + family + " proxier (" + tool + " input in iptables and ipvs modes)"
}
