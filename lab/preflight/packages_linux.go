package preflight

import (
	"slices"
	"strings"
)

// debianPackage maps each program svclab may exec to the Debian package
// that ships it.
var debianPackage = map[string]string{
	"iptables":                "iptables",
	"iptables-restore":        "iptables",
	"iptables-save":           "iptables",
	"iptables-legacy":         "iptables",
	"iptables-legacy-restore": "iptables",
	"iptables-legacy-save":    "iptables",
	"iptables-nft":            "iptables",
	"iptables-nft-restore":    "iptables",
	"iptables-nft-save":       "iptables",
	"nft":                     "nftables",
	"ip":                      "iproute2",
	"conntrack":               "conntrack",
	"ipset":                   "ipset",
	"ipvsadm":                 "ipvsadm",
	"linux":                   "user-mode-linux",
	"modprobe":                "kmod",
}

// PackageFor names the Debian package that provides binary, or "" when
// svclab does not know it.
func PackageFor(binary string) string { return debianPackage[binary] }

// FixFor is the advice for a missing binary: the apt-get command for a known
// one, a plain request otherwise.
func FixFor(binary string) string {
	if pkg := PackageFor(binary); pkg != "" {
		return "apt-get install -y " + pkg + " (or run `make setup`)"
	}
	return "install " + binary + " and put it on PATH"
}

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
