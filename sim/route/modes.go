package route

import (
	"fmt"
	"io"
	"strings"

	"github.com/svclab/svclab/sim/analyze"
	simipt "github.com/svclab/svclab/sim/iptables"
	simipvs "github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	simnft "github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/render/iptables"
	"github.com/svclab/svclab/sim/render/ipvs"
	"github.com/svclab/svclab/sim/render/nftables"
)

// mode is what svclab knows of one kube-proxy mode apart from tracing it
// (the tracer is picked by the loaded dump's kind): how its payload is
// written, and how the kernel tools would load svclab's payload and
// kube-proxy's own sync. A new mode is one row of modes;
// TestEveryModeHasAnEntry fails when sim/dataplane names a mode without.
type mode struct {
	// render writes m's payload (one family's model) as cfg's kube-proxy.
	render func(w io.Writer, m *model.Model, cfg render.Config) (render.Stats, error)
	// load reads a payload render wrote for m with cfg into the tracers'
	// dump.
	load func(payload io.Reader, m *model.Model, cfg render.Config) (*analyze.Dump, error)
	// loadSync reads kube-proxy's own first sync of m (whole model, the
	// proxier's family in m.Family) with cfg into the tracers' dump.
	loadSync func(m *model.Model, cfg render.Config, s kube.Sync) (*analyze.Dump, error)
	// size predicts the payload's rules, chains and elements for n
	// synthetic services with m endpoints each (PayloadSize).
	size func(n, m int) render.Stats
	// syncPayload is kube-proxy's own sync as render writes the payload
	// (SyncPayload; nil: the sync's payload as it is).
	syncPayload func(s kube.Sync) string
}

// modes is every kube-proxy mode's entry.
var modes = map[Mode]mode{
	IPTables: {
		render: func(w io.Writer, m *model.Model, cfg render.Config) (render.Stats, error) {
			return iptables.Render(w, m, iptables.OptionsFor(cfg))
		},
		load: LoadIPTables,
		size: iptablesSize,
		loadSync: func(m *model.Model, cfg render.Config, s kube.Sync) (*analyze.Dump, error) {
			mf := model.ForFamily(*m, m.Family)
			return LoadIPTables(strings.NewReader(s.Payload), &mf, cfg)
		},
	},
	NFTables: {
		render: func(w io.Writer, m *model.Model, cfg render.Config) (render.Stats, error) {
			return nftables.Render(w, m, nftables.OptionsFor(cfg))
		},
		load:     loadPayload,
		loadSync: loadNFTablesSync,
		size:     nftablesSize,
	},
	IPVS: {
		render: func(w io.Writer, m *model.Model, cfg render.Config) (render.Stats, error) {
			s, err := ipvs.Render(w, m, ipvs.OptionsFor(cfg))
			return s.Total, err
		},
		load: func(payload io.Reader, m *model.Model, cfg render.Config) (*analyze.Dump, error) {
			d, err := loadPayload(payload, m, cfg)
			if err != nil {
				return nil, err
			}
			return d, AddIPVSJumps(d)
		},
		loadSync: loadIPVSSync,
		syncPayload: func(s kube.Sync) string {
			return ipvs.CombinedFromState(s.IPVS, s.IPSet, s.Payload)
		},
		size: ipvsSize,
	},
}

// modeEntry returns the entry of mode m.
func modeEntry(m Mode) (mode, error) {
	e, ok := modes[m]
	if !ok {
		return mode{}, fmt.Errorf("route: unknown kube-proxy mode %q (want one of %v)", m, Modes())
	}
	return e, nil
}

// loadPayload loads a payload whose kind analyze.Load recognises.
func loadPayload(payload io.Reader, _ *model.Model, _ render.Config) (*analyze.Dump, error) {
	d, err := analyze.Load(payload)
	if err != nil {
		return nil, fmt.Errorf("route: load the payload: %w", err)
	}
	return d, nil
}

// LoadSync loads kube-proxy's first sync of m (the whole model, the
// proxier's family in m.Family) in cfg's mode, written with cfg's flags,
// as the kernel holds it: the
// iptables payload restored with the jump rules kube-proxy ensures, the
// nft transaction applied, IPVS's virtual servers, ipsets and iptables
// rules.
func LoadSync(m *model.Model, cfg Config, s kube.Sync) (*analyze.Dump, error) {
	e, err := modeEntry(cfg.Mode)
	if err != nil {
		return nil, err
	}
	return e.loadSync(m, cfg.Config, s)
}

// SyncPayload is kube-proxy's own sync of mode md as svclab's renderer
// writes that mode's payload (IPVS mode: its ipvsadm, ipset and iptables
// parts in the three sections of Render).
func SyncPayload(md Mode, s kube.Sync) (string, error) {
	e, err := modeEntry(md)
	if err != nil {
		return "", err
	}
	if e.syncPayload == nil {
		return s.Payload, nil
	}
	return e.syncPayload(s), nil
}

// loadNFTablesSync parses kube-proxy's nft transaction.
func loadNFTablesSync(_ *model.Model, _ render.Config, s kube.Sync) (*analyze.Dump, error) {
	rs, err := simnft.ParseString(s.Payload)
	if err != nil {
		return nil, fmt.Errorf("kube-proxy's nft transaction: %w", err)
	}
	return &analyze.Dump{Kind: analyze.KindNFTables, NFT: rs}, nil
}

// loadIPVSSync reads IPVS mode's three parts and adds the jump rules.
func loadIPVSSync(_ *model.Model, _ render.Config, s kube.Sync) (*analyze.Dump, error) {
	tab, err := simipvs.ParseIPVSAdm(strings.NewReader(s.IPVS))
	if err != nil {
		return nil, fmt.Errorf("kube-proxy's virtual servers: %w", err)
	}
	sets, err := simipvs.ParseIPSetSave(strings.NewReader(s.IPSet))
	if err != nil {
		return nil, fmt.Errorf("kube-proxy's ipsets: %w", err)
	}
	ipt, err := simipt.Apply(nil, strings.NewReader(s.Payload), false)
	if err != nil {
		return nil, fmt.Errorf("kube-proxy's iptables-restore payload: %w", err)
	}
	d := &analyze.Dump{Kind: analyze.KindIPVS, IPVS: tab, IPSets: sets, IPT: ipt}
	return d, AddIPVSJumps(d)
}
