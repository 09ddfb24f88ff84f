package route

import (
	"bytes"
	"fmt"
	"io"

	"github.com/svclab/svclab/sim/analyze"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/render/ipvs"
)

// Config is the kube-proxy whose rules an Oracle renders: its mode and its
// configuration (render.Config).
type Config struct {
	Mode Mode
	render.Config
}

// Rules renders m (one family's model, see model.ForFamily) as cfg's
// kube-proxy writes it and loads the payload as the kernel tools would:
// the iptables payload restored, then kube-proxy's jump rules from the
// built-in chains (as lab/apply ensures them); the nft script parsed;
// the ipvsadm, ipset and iptables parts of IPVS mode parsed (each mode's
// entry in modes).
func Rules(m *model.Model, cfg Config) (*analyze.Dump, error) {
	e, err := modeEntry(cfg.Mode)
	if err != nil {
		return nil, err
	}
	var payload bytes.Buffer
	if _, err := e.render(&payload, m, cfg.Config); err != nil {
		return nil, fmt.Errorf("route: render %s: %w", cfg.Mode, err)
	}
	return e.load(&payload, m, cfg.Config)
}

// Render writes m's payload (one family's model) as cfg's kube-proxy
// writes it in cfg.Mode, and returns its size.
func Render(w io.Writer, m *model.Model, cfg Config) (render.Stats, error) {
	e, err := modeEntry(cfg.Mode)
	if err != nil {
		return render.Stats{}, err
	}
	return e.render(w, m, cfg.Config)
}

// AddIPVSJumps restores IPVS mode's jump rules from the built-in chains
// (INPUT → KUBE-IPVS-FILTER, KUBE-NODE-PORT, …, as kube-proxy ensures
// them) into an IPVS dump's iptables rules, which kube-proxy's payload
// leaves out; without them the tracer would assume iptables mode's.
func AddIPVSJumps(d *analyze.Dump) error {
	if d.Kind != analyze.KindIPVS || d.IPT == nil {
		return fmt.Errorf("route: a %s dump has no IPVS-mode iptables rules to add the jump rules to", d.Kind)
	}
	var jumps bytes.Buffer
	if _, err := ipvs.RenderJumps(&jumps); err != nil {
		return fmt.Errorf("route: render the ipvs jump rules: %w", err)
	}
	var rules bytes.Buffer
	if _, err := d.IPT.WriteTo(&rules); err != nil {
		return fmt.Errorf("route: print the ipvs mode's iptables rules: %w", err)
	}
	ipt, err := simipt.Apply(nil, &rules, false) // with the built-in chains
	if err != nil {
		return fmt.Errorf("route: restore the ipvs mode's iptables rules: %w", err)
	}
	ipt, err = simipt.Apply(ipt, &jumps, true)
	if err != nil {
		return fmt.Errorf("route: restore the ipvs jump rules: %w", err)
	}
	d.IPT = ipt
	return nil
}

// LoadIPTables restores an iptables mode payload for m (one family's
// model) into empty tables, then kube-proxy's jump rules from the
// built-in chains for cfg's flags, as lab/apply ensures them.
func LoadIPTables(payload io.Reader, m *model.Model, cfg render.Config) (*analyze.Dump, error) {
	var jumps bytes.Buffer
	if _, err := iptables.RenderModelJumps(&jumps, m, iptables.OptionsFor(cfg)); err != nil {
		return nil, fmt.Errorf("route: render iptables jump rules: %w", err)
	}
	dump, err := simipt.Apply(nil, payload, false)
	if err != nil {
		return nil, fmt.Errorf("route: restore the iptables payload: %w", err)
	}
	if dump, err = simipt.Apply(dump, &jumps, true); err != nil {
		return nil, fmt.Errorf("route: restore the iptables jump rules: %w", err)
	}
	return &analyze.Dump{Kind: analyze.KindIPTables, IPT: dump}, nil
}
