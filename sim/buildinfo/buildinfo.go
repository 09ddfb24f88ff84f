// Package buildinfo says which svclab this is: its version and commit, as
// the Makefile stamps them (-ldflags -X) or, failing that, as the Go
// toolchain recorded them in the binary (the module version of a
// `go install …@vX` build, the vcs.revision of a build in a git checkout),
// and the Go version and platform it was built with. It reads no files and
// runs nothing, so it works on every platform.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Version and Commit are stamped by the Makefile:
//
//	-ldflags "-X github.com/svclab/svclab/sim/buildinfo.Version=v0.1.0
//	          -X github.com/svclab/svclab/sim/buildinfo.Commit=0123abcd4567"
//
// Empty means unstamped: Get falls back to the binary's build info.
var (
	Version = ""
	Commit  = ""
)

// DevVersion and UnknownCommit stand for what a binary with neither a
// stamp nor build info (e.g. `go run` with -buildvcs=false) cannot say.
const (
	DevVersion    = "dev"
	UnknownCommit = "unknown"
)

// Info is what `svclab version` prints and run metadata records.
type Info struct {
	// Version is the release (a tag such as v0.1.0) or a Go pseudo-version
	// (v0.0.0-20261201223000-0123abcd4567) for an untagged commit; "dev"
	// when nothing says.
	Version string `json:"version"`
	// Commit is the git commit, 12 hex digits, with "-dirty" when the
	// working tree had changes; "unknown" when nothing says.
	Commit string `json:"commit"`
	// GoVersion is the Go release that built the binary, e.g. go1.26.8.
	GoVersion string `json:"go_version"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
}

// Get returns the running binary's Info.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuild(Version, Commit, bi)
}

// fromBuild prefers the stamps, then bi (which may be nil).
func fromBuild(version, commit string, bi *debug.BuildInfo) Info {
	info := Info{Version: version, Commit: commit, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		if info.Commit == "" {
			info.Commit = vcsCommit(bi.Settings)
		}
	}
	if info.Version == "" {
		info.Version = DevVersion
	}
	if info.Commit == "" {
		info.Commit = UnknownCommit
	}
	return info
}

// vcsCommit is the commit the toolchain recorded (vcs.revision, cut to 12
// digits, "-dirty" if vcs.modified), or "".
func vcsCommit(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// Driver is one kube-proxy driver binary (kubeproxy/cmd/kube-proxy-driver)
// as `svclab version` found it.
type Driver struct {
	// KubeProxy is the supported kube-proxy version it is for, e.g. 1.37.
	KubeProxy string `json:"kube_proxy"`
	// Path is where it was found; empty when it was not.
	Path string `json:"path,omitempty"`
	// Version is the k8s.io/kubernetes release it links, as it reports it
	// (e.g. v1.37.2); empty when it was not found or did not answer.
	Version string `json:"version,omitempty"`
	// Error says why it is missing or did not answer.
	Error string `json:"error,omitempty"`
}
