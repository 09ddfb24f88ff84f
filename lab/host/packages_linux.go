package host

import (
	"slices"
	"strings"

	"github.com/svclab/svclab/sim/dataplane"
)

// PackageFor names the Debian package that provides binary (see
// sim/dataplane), or "" when svclab does not know it.
func PackageFor(binary string) string { return dataplane.PackageFor(binary) }

// FixFor is the advice for a missing binary (see sim/dataplane).
func FixFor(binary string) string { return dataplane.FixFor(binary) }

// packagesToInstall lists, sorted and once each, the packages whose
// binaries the problems say are missing.
func packagesToInstall(problems []Problem) []string {
	var pkgs []string
	for _, p := range problems {
		bin, missing := strings.CutSuffix(p.What, " not found")
		if pkg := PackageFor(bin); missing && pkg != "" && !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
	}
	slices.Sort(pkgs)
	return pkgs
}
