package dataplane

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

// PackageFor names the Debian package that provides a program svclab
// execs, or "" when svclab does not know it.
func PackageFor(program string) string { return debianPackage[program] }

// FixFor is the advice for a missing program: the apt-get command for a
// known one, a plain request otherwise.
func FixFor(program string) string {
	if pkg := PackageFor(program); pkg != "" {
		return "apt-get install -y " + pkg + " (or run `make setup`)"
	}
	return "install " + program + " and put it on PATH"
}
