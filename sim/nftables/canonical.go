package nftables

import (
	"sort"
	"strings"
)

// transactionObjectOrder ranks the object kinds of a transaction's lines
// as kube-proxy's test helper does.
var transactionObjectOrder = map[string]int{"table": 10, "chain": 9, "rule": 8, "set": 7, "map": 6, "element": 5}

// SortTransaction is kube-proxy's canonical order of an nft transaction
// (sortNFTablesTransaction in pkg/proxy/nftables/helpers_test.go, the same
// in v1.35.4 and v1.37.2), which its tests compare after: comment and
// empty lines dropped; tables, then chains, rules, sets, maps and
// elements; within a kind by object name; rules keep their order, other
// lines are sorted as text.
func SortTransaction(tx string) string {
	lines := strings.Split(tx, "\n")
	for i := 0; i < len(lines); {
		if lines[i] == "" || lines[i][0] == '#' {
			lines = append(lines[:i], lines[i+1:]...)
		} else {
			i++
		}
	}
	sort.SliceStable(lines, func(i, j int) bool {
		li, lj := lines[i], lines[j]
		wi, wj := strings.Split(li, " "), strings.Split(lj, " ")
		if len(wi) < 5 || len(wj) < 5 {
			return false
		}
		if wi[1] != wj[1] {
			return transactionObjectOrder[wi[1]] >= transactionObjectOrder[wj[1]]
		}
		if wi[4] != wj[4] {
			return wi[4] < wj[4]
		}
		if wi[1] == "rule" {
			return false
		}
		return li < lj
	})
	return strings.Join(lines, "\n")
}
