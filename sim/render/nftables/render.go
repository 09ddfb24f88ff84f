package nftables

import (
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// Render streams to w the transaction of kube-proxy's first full sync for
// m (as `nft -f` input): the table, its base and top-level chains, sets and
// maps, then every service port of m.Services in order. The script loads
// into an empty network namespace and loads again over its own result.
func Render(w io.Writer, m *model.Model, opts Options) (render.Stats, error) {
	if err := opts.Version.Validate(); err != nil {
		return render.Stats{}, fmt.Errorf("render nftables: %w", err)
	}
	out := render.NewWriter(w)
	r := newRenderer(out, m.Cluster, m.Family, opts)
	r.writeSetup()
	for i := 0; i < m.Services.Len(); i++ {
		if err := r.writeService(m.Services.At(i)); err != nil {
			return flushWith(out, err)
		}
	}
	return out.Flush()
}

// writeService writes every port of s; headless and ExternalName services
// (and those without a ClusterIP of the rendered family) are skipped, as
// kube-proxy skips them.
func (r *renderer) writeService(s *model.Service) error {
	if s.Skipped() {
		return nil
	}
	r.lastClusterIP = ""
	pc := r.portContext()
	for _, p := range s.Ports {
		sp, err := newServicePort(s, p, pc)
		if err != nil {
			return fmt.Errorf("render nftables service %s/%s: %w", s.Namespace, s.Name, err)
		}
		r.writePort(sp)
	}
	return nil
}

// flushWith flushes what was written and returns err in preference to any
// flush error.
func flushWith(out *render.Writer, err error) (render.Stats, error) {
	st, _ := out.Flush()
	return st, err
}
