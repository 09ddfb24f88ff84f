package nftables

import (
	"fmt"
	"sort"
)

func sortStrings(s []string) { sort.Strings(s) }

func fmtExpr(x Expr) string { return fmt.Sprintf("%+v", x) }
