package dataplane

import (
	"fmt"
	"strings"
)

// Mode is a kube-proxy proxy mode (--proxy-mode), the payload a dataplane
// loads; svclab's renderers, tracers and kube-proxy's driver speak it.
type Mode string

// kube-proxy's proxy modes. ModeNone is a dataplane that loads no
// kube-proxy payload (the eBPF ones program their own maps).
const (
	ModeNone     Mode = ""
	ModeIPTables Mode = "iptables"
	ModeNFTables Mode = "nftables"
	ModeIPVS     Mode = "ipvs"
)

// modes lists kube-proxy's modes in the order tables and summaries show them.
var modes = []Mode{ModeIPTables, ModeNFTables, ModeIPVS}

// Modes returns kube-proxy's proxy modes, in a fixed order.
func Modes() []Mode { return append([]Mode(nil), modes...) }

// ModeNames returns the modes' names, in the order of Modes.
func ModeNames() []string {
	out := make([]string, len(modes))
	for i, m := range modes {
		out[i] = string(m)
	}
	return out
}

// ParseMode returns the kube-proxy mode called name, or an error that lists
// the modes.
func ParseMode(name string) (Mode, error) {
	for _, m := range modes {
		if string(m) == name {
			return m, nil
		}
	}
	return ModeNone, fmt.Errorf("mode %q: want %s", name, orList(ModeNames()))
}

// ByMode returns the dataplanes that load mode's payload, in the order of All.
func ByMode(mode Mode) []Info {
	var out []Info
	for _, d := range all {
		if d.Mode == mode {
			out = append(out, d)
		}
	}
	return out
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
