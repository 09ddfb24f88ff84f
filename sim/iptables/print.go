package iptables

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteTo writes d in iptables-restore form, the way kube-proxy's
// IPTablesDump.String does: per table, "*name", the chain declarations in
// order, the rules grouped by chain in chain order, the "-X" lines, then
// "COMMIT". Words are joined by single spaces and quoted only when needed
// (QuoteWord). Rule counters, when present, are written as a "[p:b]"
// prefix.
func (d *Dump) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := &countingWriter{w: bw}
	for _, t := range d.Tables {
		writeTable(cw, t)
	}
	if err := bw.Flush(); err != nil {
		return cw.n, fmt.Errorf("write iptables dump: %w", err)
	}
	return cw.n, cw.err
}

// String returns d as WriteTo writes it.
func (d *Dump) String() string {
	var b strings.Builder
	_, _ = d.WriteTo(&b)
	return b.String()
}

func writeTable(w *countingWriter, t *Table) {
	w.printf("*%s\n", t.Name)
	for _, c := range t.Chains {
		if c.Implicit {
			continue
		}
		policy := c.Policy
		if policy == "" {
			policy = "-"
		}
		w.printf(":%s %s [%d:%d]\n", c.Name, policy, c.Counters.Packets, c.Counters.Bytes)
	}
	for _, c := range t.Chains {
		for _, r := range c.Rules {
			w.printf("%s\n", r.String())
		}
	}
	for _, c := range t.Chains {
		if c.Deleted {
			w.printf("-X %s\n", c.Name)
		}
	}
	w.printf("COMMIT\n")
}

// String returns the rule line, "-A CHAIN words...", with a "[p:b]" prefix
// when the rule has counters.
func (r *Rule) String() string {
	var b strings.Builder
	if r.Counters != nil {
		fmt.Fprintf(&b, "[%d:%d] ", r.Counters.Packets, r.Counters.Bytes)
	}
	b.WriteString("-A ")
	b.WriteString(r.Chain)
	if len(r.Words) > 0 {
		b.WriteByte(' ')
		writeWords(&b, r.Words)
	}
	return b.String()
}

// countingWriter counts bytes and keeps the first error.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) printf(format string, args ...any) {
	if c.err != nil {
		return
	}
	n, err := fmt.Fprintf(c.w, format, args...)
	c.n += int64(n)
	c.err = err
}
