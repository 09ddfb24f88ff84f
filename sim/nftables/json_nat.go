package nftables

import (
	"encoding/json"
	"fmt"
	"strings"
)

// natMapText writes kube-proxy v1.36+'s numgen DNAT as nft -j lists it,
// {"dnat": {"family": "ip", "addr": {"map": {"key": {"numgen": …},
// "data": {"set": [[0, {"concat": ["10.0.0.1", 80]}], …]}}}}}, in the
// listing's text form (see NumgenNAT). ok is false when raw's address is
// not a map.
func natMapText(kind string, raw json.RawMessage) (text string, ok bool, err error) {
	var n struct {
		Family string
		Addr   struct {
			Map *struct {
				Key  json.RawMessage
				Data struct{ Set [][]json.RawMessage }
			}
		}
	}
	if json.Unmarshal(raw, &n) != nil || n.Addr.Map == nil {
		return "", false, nil
	}
	key, err := jsonValueText(n.Addr.Map.Key, "")
	if err != nil {
		return "", true, err
	}
	var entries []string
	for _, kv := range n.Addr.Map.Data.Set {
		if len(kv) != 2 {
			return "", true, fmt.Errorf("%s map entry: want [key, value]", kind)
		}
		k, err := jsonValueText(kv[0], "")
		if err != nil {
			return "", true, err
		}
		v, err := jsonValueText(kv[1], "")
		if err != nil {
			return "", true, err
		}
		entries = append(entries, k+" : "+v)
	}
	family := ""
	if n.Family != "" {
		family = n.Family + " "
	}
	return kind + " " + family + "to " + key + " map { " + strings.Join(entries, ", ") + " }", true, nil
}
