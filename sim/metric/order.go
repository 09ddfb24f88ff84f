package metric

import (
	"slices"
	"strings"
)

// positionOrder is the order in which target positions are listed.
var positionOrder = []string{"first", "middle", "last", "uniform"}

// ComparePositions orders target positions first, middle, last, uniform,
// then others by name.
func ComparePositions(a, b string) int {
	ra, rb := positionRank(a), positionRank(b)
	if ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

func positionRank(p string) int {
	if i := slices.Index(positionOrder, p); i >= 0 {
		return i
	}
	return len(positionOrder)
}
