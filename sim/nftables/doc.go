// Package nftables parses the subset of nftables text that kube-proxy's
// nftables mode produces and that `nft list ruleset` prints back: both the
// `nft -f` transaction form ("add table …", "add chain …", "add rule …",
// "add map …", "add element …", "flush …", "delete …") and the nested
// listing form ("table ip kube-proxy { chain … { type nat hook prerouting
// priority dstnat; policy accept; … } map … { elements = { … } } }").
//
// Parsing applies the commands in order to a Ruleset and validates them as
// the kernel would: rules may only jump to chains and look up sets that
// exist, a chain that is still referenced cannot be deleted, an element
// cannot be re-added with a different value. Rule bodies are split into
// tokens and, where they have one of kube-proxy's shapes, into expressions
// (matches, verdict maps on concatenated keys, numgen, dnat, masquerade,
// mark, set updates, counters). Both of kube-proxy's layouts parse: v1.35's
// endpoint chains, and v1.36+'s "dnat ip addr . port to numgen random mod N
// map { … }" (NumgenNAT), hairpin-connections set and named counter
// objects. Errors carry line numbers; malformed input never panics.
package nftables
