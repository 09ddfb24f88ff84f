package scenario

import (
	"fmt"
	"net/netip"
	"strings"
)

// The name rules of the Kubernetes API (k8s.io/apimachinery/pkg/util/validation),
// written out here: a namespace is a DNS-1123 label, a service name a
// DNS-1035 label, a port name an IANA service name, a node name a DNS-1123
// subdomain. Each returns "" for a valid name, otherwise what is wrong.

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isLower(c) || isDigit(c) }

// checkLabel checks the shared part of DNS-1123 and DNS-1035 labels.
func checkLabel(s string) string {
	if s == "" {
		return "must not be empty"
	}
	if len(s) > 63 {
		return fmt.Sprintf("must be no more than 63 characters (has %d)", len(s))
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '-' {
			return fmt.Sprintf("must consist of lower case alphanumeric characters or '-' (has %q at byte %d)", string(rune(c)), i)
		}
	}
	if !isAlnum(s[len(s)-1]) {
		return "must end with an alphanumeric character"
	}
	return ""
}

// dns1123Label validates a namespace.
func dns1123Label(s string) string {
	if msg := checkLabel(s); msg != "" {
		return msg
	}
	if !isAlnum(s[0]) {
		return "must start with an alphanumeric character"
	}
	return ""
}

// dns1035Label validates a service name.
func dns1035Label(s string) string {
	if msg := checkLabel(s); msg != "" {
		return msg
	}
	if !isLower(s[0]) {
		return "must start with a lower case letter"
	}
	return ""
}

// dns1123Subdomain validates a node name: dot-separated DNS-1123 labels,
// at most 253 characters.
func dns1123Subdomain(s string) string {
	if s == "" {
		return "must not be empty"
	}
	if len(s) > 253 {
		return fmt.Sprintf("must be no more than 253 characters (has %d)", len(s))
	}
	for _, part := range strings.Split(s, ".") {
		if msg := dns1123Label(part); msg != "" {
			return "each dot-separated part " + msg
		}
	}
	return ""
}

// ianaServiceName validates a port name as IsValidPortName does.
func ianaServiceName(s string) string {
	switch {
	case len(s) > 15:
		return fmt.Sprintf("must be no more than 15 characters (has %d)", len(s))
	case strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || s == "":
		return "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"
	case !strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz"):
		return "must contain at least one letter (a-z)"
	case strings.Contains(s, "--"):
		return "must not contain consecutive hyphens"
	case s[0] == '-' || s[len(s)-1] == '-':
		return "must not begin or end with a hyphen"
	}
	return ""
}

// scenarioName validates the scenario's name (it names run directories).
func scenarioName(s string) string {
	if s == "" || len(s) > 63 {
		return "must be 1-63 characters"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && !(c >= 'A' && c <= 'Z') && c != '.' && c != '_' && c != '-' {
			return fmt.Sprintf("must consist of A-Z, a-z, 0-9, '.', '_' or '-' (has %q at byte %d)", string(rune(c)), i)
		}
	}
	if s[0] == '.' || s[0] == '-' {
		return "must not start with '.' or '-'"
	}
	return ""
}

// safeName turns a file's base name into a valid scenario name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !isAlnum(c) && !(c >= 'A' && c <= 'Z') && c != '.' && c != '_' && c != '-' {
			b[i] = '-'
		}
	}
	out := strings.TrimLeft(string(b), ".-")
	if len(out) > 63 {
		out = out[:63]
	}
	if out == "" {
		return "scenario"
	}
	return out
}

// controlChar returns the first control character in s other than newline
// and tab, or -1.
func controlChar(s string) int {
	for i, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			return i
		}
	}
	return -1
}

// badIP says why ip cannot be a service's or a pod's address, or "".
func badIP(ip netip.Addr) string {
	switch {
	case !ip.Is4():
		return "not an IPv4 address"
	case ip.IsUnspecified():
		return "the unspecified address"
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsMulticast():
		return "a multicast address"
	case ip.IsLinkLocalUnicast():
		return "a link-local address"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address"
	case !ip.IsGlobalUnicast():
		return "not a unicast address"
	}
	return ""
}
