package iptables

import (
	"fmt"
	"sync"
)

// probabilities memoises kube-proxy's computeProbability strings, as its
// precomputedProbabilities slice does. Index 0 is unused.
var probabilities = struct {
	sync.Mutex
	values []string
}{values: []string{"<bad value>"}}

// Probability returns kube-proxy's --probability string for choosing one of
// n remaining endpoints: fmt.Sprintf("%0.10f", 1.0/float64(n)).
func Probability(n int) string {
	probabilities.Lock()
	defer probabilities.Unlock()
	for len(probabilities.values) <= n {
		k := len(probabilities.values)
		probabilities.values = append(probabilities.values, fmt.Sprintf("%0.10f", 1.0/float64(k)))
	}
	return probabilities.values[n]
}
