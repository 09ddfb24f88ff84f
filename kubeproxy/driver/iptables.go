package driver

import (
	"bufio"
	"bytes"
	"sort"
	"strings"
	"sync"

	utiliptables "k8s.io/kubernetes/pkg/util/iptables"
)

// recIPTables wraps an iptables interface and records every restore
// payload. In render mode (fake) nothing is restored: it keeps only the
// chain names each table would hold, so that SaveInto answers kube-proxy's
// stale-chain listing as the kernel would, without parsing rules. In sync
// mode every call goes through to the real tools. It is safe for
// concurrent use: in loop mode the sync runner, the first sync and
// iptables mode's canary monitor call it from their own goroutines.
type recIPTables struct {
	utiliptables.Interface
	mu   sync.Mutex
	fake bool
	// noRandomFully is the render-mode fake's answer to HasRandomFully.
	noRandomFully bool
	chains        map[utiliptables.Table]map[string]bool
	payloads      [][]byte
	err           error
}

func newRecIPTables(inner utiliptables.Interface, fake bool) *recIPTables {
	return &recIPTables{Interface: inner, fake: fake, chains: map[utiliptables.Table]map[string]bool{}}
}

// take returns and clears what was recorded since the last call.
func (r *recIPTables) take() ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := bytes.Join(r.payloads, nil), r.err
	r.payloads, r.err = nil, nil
	return p, err
}

func (r *recIPTables) record(data []byte, err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.payloads = append(r.payloads, bytes.Clone(data))
	if err != nil && r.err == nil {
		r.err = err
	}
	return err
}

// RestoreAll records data, then restores it (sync) or tracks its chains
// (render).
func (r *recIPTables) RestoreAll(data []byte, flush utiliptables.FlushFlag, counters utiliptables.RestoreCountersFlag) error {
	if r.fake {
		r.trackLocked("", data)
		return r.record(data, nil)
	}
	return r.record(data, r.Interface.RestoreAll(data, flush, counters))
}

// Restore is RestoreAll for one table.
func (r *recIPTables) Restore(table utiliptables.Table, data []byte, flush utiliptables.FlushFlag, counters utiliptables.RestoreCountersFlag) error {
	if r.fake {
		r.trackLocked(table, data)
		return r.record(data, nil)
	}
	return r.record(data, r.Interface.Restore(table, data, flush, counters))
}

// EnsureChain tracks the chain, then passes the call on.
func (r *recIPTables) EnsureChain(table utiliptables.Table, chain utiliptables.Chain) (bool, error) {
	r.mu.Lock()
	r.table(table)[string(chain)] = true
	r.mu.Unlock()
	return r.Interface.EnsureChain(table, chain)
}

// SaveInto lists the tracked chains of table (render) or runs
// iptables-save (sync).
func (r *recIPTables) SaveInto(table utiliptables.Table, buffer *bytes.Buffer) error {
	if !r.fake {
		return r.Interface.SaveInto(table, buffer)
	}
	r.mu.Lock()
	names := make([]string, 0, len(r.chains[table]))
	for c := range r.chains[table] {
		names = append(names, c)
	}
	r.mu.Unlock()
	sort.Strings(names)
	buffer.WriteString("*" + string(table) + "\n")
	for _, c := range names {
		buffer.WriteString(":" + c + " - [0:0]\n")
	}
	buffer.WriteString("COMMIT\n")
	return nil
}

func (r *recIPTables) table(t utiliptables.Table) map[string]bool {
	m := r.chains[t]
	if m == nil {
		m = map[string]bool{}
		r.chains[t] = m
	}
	return m
}

// trackLocked is track under the lock.
func (r *recIPTables) trackLocked(table utiliptables.Table, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.track(table, data)
}

// track applies the chain declarations (":NAME") and deletions ("-X NAME")
// of a restore payload to the tracked chain names.
func (r *recIPTables) track(table utiliptables.Table, data []byte) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "*"):
			table = utiliptables.Table(line[1:])
		case strings.HasPrefix(line, ":"):
			r.table(table)[strings.Fields(line[1:])[0]] = true
		case strings.HasPrefix(line, "-X "):
			delete(r.table(table), strings.TrimSpace(line[3:]))
		}
	}
}

// HasRandomFully answers kube-proxy up to v1.36, which asks the iptables
// interface whether MASQUERADE --random-fully is supported (v1.37's
// interface has no such method). The render-mode fake answers as the
// request says (kube.Request.NoRandomFully; by default as this machine's
// iptables, 1.8, would); sync mode asks the real one.
func (r *recIPTables) HasRandomFully() bool {
	if h, ok := r.Interface.(interface{ HasRandomFully() bool }); ok && !r.fake {
		return h.HasRandomFully()
	}
	return !r.noRandomFully
}
