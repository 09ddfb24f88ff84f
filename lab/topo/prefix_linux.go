package topo

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// PrefixBase starts every svclab object name; Cleanup's default prefix.
const PrefixBase = "svl-"

// maxLinkName is the kernel's limit on interface names (IFNAMSIZ - 1).
const maxLinkName = 15

// A run prefix, or a sub-lab prefix of a run ("svl-3f9a-7": a sweep point).
var prefixPattern = regexp.MustCompile(`^svl-[a-z0-9]+(-[a-z0-9]+)?$`)

// NewPrefix returns a fresh run prefix: "svl-" and four random hex digits.
func NewPrefix() string {
	var b [2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return PrefixBase + hex.EncodeToString(b[:])
}

// ValidPrefix reports whether prefix is a run prefix or a sub-lab prefix.
func ValidPrefix(prefix string) bool { return prefixPattern.MatchString(prefix) }

// validatePrefix checks that prefix names svclab objects and leaves room in
// the 15-character link names for the node-side veth of the last pod.
func validatePrefix(prefix string, pods int) error {
	if !prefixPattern.MatchString(prefix) {
		return fmt.Errorf("run prefix %q: want %q followed by lowercase letters or digits", prefix, PrefixBase)
	}
	longest := podVethName(prefix, max(pods-1, 0))
	if len(longest) > maxLinkName {
		return fmt.Errorf("run prefix %q: veth name %s would exceed %d characters", prefix, longest, maxLinkName)
	}
	return nil
}

// nodeNetnsName and the functions below it are the one place names are made.
func nodeNetnsName(prefix string) string   { return prefix + "-node" }
func clientNetnsName(prefix string) string { return prefix + "-cli" }
func sinkNetnsName(prefix string) string   { return prefix + "-sink" }
func clientVethName(prefix string) string  { return prefix + "c" }
func sinkVethName(prefix string) string    { return prefix + "s" }
func serviceLinkName(prefix string) string { return prefix + "u" }
func externalNetnsName(prefix string) string {
	return prefix + "-ext"
}
func externalVethName(prefix string) string { return prefix + "x" }
func secondNodeNetnsName(prefix string) string {
	return prefix + "-node2"
}
func peerLinkName(prefix string) string { return prefix + "n" }
func serviceFarLinkName(prefix string) string {
	return prefix + "w"
}
func podVethName(prefix string, index int) string {
	return prefix + "p" + strconv.Itoa(index)
}

// podNetnsName names a pod's namespace after the pod, or after its index
// when the pod has no name.
func podNetnsName(prefix string, pod Pod, index int) string {
	if pod.Name == "" {
		return prefix + "-p" + strconv.Itoa(index)
	}
	return prefix + "-" + pod.Name
}

// belongsToRun reports whether an object name belongs to prefix: a prefix
// ending in "-" (like the default "svl-") matches every name it starts;
// a run prefix matches itself and names continuing with "-", so cleaning
// up "svl-3f9a" never touches "svl-3f9ab-node".
func belongsToRun(name, prefix string) bool { return BelongsToRun(name, prefix) }

// BelongsToRun reports whether an object name belongs to the run prefix (see
// belongsToRun).
func BelongsToRun(name, prefix string) bool {
	if strings.HasSuffix(prefix, "-") {
		return strings.HasPrefix(name, prefix)
	}
	return name == prefix || strings.HasPrefix(name, prefix+"-")
}

// RunPrefix is the run a lab prefix belongs to: "svl-3f9a" for a sweep
// point's "svl-3f9a-7", the prefix itself otherwise.
func RunPrefix(prefix string) string {
	rest, ok := strings.CutPrefix(prefix, PrefixBase)
	if !ok {
		return prefix
	}
	run, _, _ := strings.Cut(rest, "-")
	return PrefixBase + run
}
