package driver

import (
	"context"
	"strings"
	"sync"

	"sigs.k8s.io/knftables"
)

// recNFT wraps a knftables interface and records the text of every
// transaction before running it (knftables' Fake writes object handles
// into the transaction it runs, so the text must be taken first). In
// render mode the inner interface is knftables' Fake, which keeps the table
// kube-proxy lists back on its next sync; in sync mode it is the real nft.
// It is safe for concurrent use (loop mode syncs from the runner's
// goroutine).
type recNFT struct {
	knftables.Interface
	mu    sync.Mutex
	texts []string
	err   error
}

// Run records tx's text, then runs it.
func (r *recNFT) Run(ctx context.Context, tx *knftables.Transaction) error {
	text := tx.String()
	err := r.Interface.Run(ctx, tx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.texts = append(r.texts, text)
	if err != nil && r.err == nil {
		r.err = err
	}
	return err
}

// take returns and clears what was recorded since the last call: the
// transactions' text, each ending in a newline, and the first error.
func (r *recNFT) take() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, t := range r.texts {
		b.WriteString(t)
		if t != "" && !strings.HasSuffix(t, "\n") {
			b.WriteByte('\n')
		}
	}
	err := r.err
	r.texts, r.err = nil, nil
	return b.String(), err
}
