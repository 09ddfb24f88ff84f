package render

import (
	"bytes"
	"fmt"
)

// PlantTable is the nftables table (family inet) that PlantScript creates.
// No kube-proxy mode uses it, so no renderer's sync replaces or flushes it.
const PlantTable = "svclab-plant"

// PlantScript is an nft script that creates PlantTable with a prerouting
// chain (priority raw, before connection tracking, so every packet passes
// it) holding rules rules that never match: each compares the destination
// address with one of 198.18.0.0/15 (RFC 2544's benchmarking range, which
// no lab address uses). Loaded into a node it adds a known per-packet cost
// to everything the node forwards: a planted slowdown, for measuring how
// well a gate detects one. rules must be at most 131072 (the range's size).
func PlantScript(rules int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "table inet %s {\n\tchain prerouting {\n\t\ttype filter hook prerouting priority raw; policy accept;\n", PlantTable)
	for i := range rules {
		fmt.Fprintf(&b, "\t\tip daddr 198.%d.%d.%d counter drop\n", 18+i>>16, i>>8&0xff, i&0xff)
	}
	b.WriteString("\t}\n}\n")
	return b.Bytes()
}
