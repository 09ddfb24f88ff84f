package nftables

// positions returns where each of sub, an ascending subset of the
// ascending of, stands in of: the servicePort's cluster and local indexes
// into its reachable endpoints, from model.Categories' indexes into the
// port's endpoints. When of is every endpoint (0, 1, …, the common case)
// the positions are sub itself, returned without a copy.
func positions(sub, of []int) []int {
	if len(sub) == 0 || of[len(of)-1] == len(of)-1 {
		return sub
	}
	out := make([]int, len(sub))
	j := 0
	for i, k := range sub {
		for of[j] != k {
			j++
		}
		out[i] = j
	}
	return out
}
