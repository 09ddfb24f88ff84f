package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/svclab/svclab/sim/buildinfo"
)

func init() {
	register(&command{name: "version", summary: "print svclab's version, commit, Go version and the kube-proxy drivers found", usage: versionUsage, run: runVersion})
}

const versionUsage = `Usage: svclab version [--format text|markdown|json]

Prints svclab's version (a release tag, or a Go pseudo-version
v0.0.0-DATE-COMMIT for an untagged commit; "dev" when the binary says
neither), the git commit it was built from ("-dirty": with uncommitted
changes), the Go release and platform that built it, and, on Linux, the
kube-proxy drivers a run with --engine kube-proxy would use: where each is
and which kube-proxy release it links. make build stamps the version and
commit; a go build or go install takes them from Go's build info.

Options:
  --format text|markdown|json   output format (default text); --json is
                                --format json: one JSON object

Examples:
  svclab version
  svclab version --json | jq -r .version
`

// kubeProxyDrivers finds the kube-proxy drivers; nil off Linux, where
// they cannot run.
var kubeProxyDrivers func() []buildinfo.Driver

// versionReport is what svclab version prints.
type versionReport struct {
	buildinfo.Info
	// KubeProxyDrivers is empty off Linux.
	KubeProxyDrivers []buildinfo.Driver `json:"kube_proxy_drivers"`
}

func runVersion(args []string, stdout, _ io.Writer) error {
	fs := newFlagSet("version")
	format := addFormatFlag(fs, formatText, formatMarkdown, formatJSON)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("version takes no arguments, got %q", rest[0])
	}
	r := versionReport{Info: buildinfo.Get(), KubeProxyDrivers: []buildinfo.Driver{}}
	if kubeProxyDrivers != nil {
		r.KubeProxyDrivers = kubeProxyDrivers()
	}
	return printResult(stdout, format.value, "svclab version", r, func(w io.Writer) error { writeVersion(w, r); return nil })
}

// writeVersion prints r as aligned text.
func writeVersion(w io.Writer, r versionReport) {
	fmt.Fprintf(w, "svclab     %s\n", r.Version)
	fmt.Fprintf(w, "commit     %s\n", r.Commit)
	fmt.Fprintf(w, "go         %s %s\n", r.GoVersion, r.Platform)
	if kubeProxyDrivers == nil {
		fmt.Fprintln(w, "kube-proxy drivers: Linux only")
		return
	}
	for _, d := range r.KubeProxyDrivers {
		switch {
		case d.Path == "":
			fmt.Fprintf(w, "kube-proxy %-5s missing: %s\n", d.KubeProxy, strings.TrimPrefix(d.Error, "kube-proxy "+d.KubeProxy+": "))
		case d.Error != "":
			fmt.Fprintf(w, "kube-proxy %-5s %s: does not answer `version`: %s\n", d.KubeProxy, d.Path, d.Error)
		default:
			fmt.Fprintf(w, "kube-proxy %-5s %s (%s)\n", d.KubeProxy, d.Version, d.Path)
		}
	}
}
