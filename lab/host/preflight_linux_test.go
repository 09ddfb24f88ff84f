package host

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/svclab/svclab/sim/golden"

	"github.com/svclab/svclab/lab/labtest"
)

// fakeHost has the binaries in onPath, the given euid, and a netns probe
// that returns netnsErr; it records whether the probe ran.
func fakeHost(euid int, netnsErr error, probed *bool, onPath ...string) hostEnv {
	return hostEnv{
		lookPath: func(file string) (string, error) {
			for _, p := range onPath {
				if p == file {
					return "/usr/sbin/" + file, nil
				}
			}
			return "", errors.New("executable file not found in $PATH")
		},
		geteuid: func() int { return euid },
		probeNetns: func() error {
			*probed = true
			return netnsErr
		},
	}
}

func TestCheck(t *testing.T) {
	rootProblem := Problem{What: "svclab's lab needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN)", Fix: "run it with sudo"}
	noNetns := errors.New("unshare(CLONE_NEWNET): operation not permitted")
	netnsProblem := Problem{
		What: "cannot create a network namespace: " + noNetns.Error(),
		Fix:  "run as root on a kernel with CONFIG_NET_NS; in a container, give it CAP_SYS_ADMIN (e.g. --privileged)",
	}
	tests := []struct {
		name       string
		req        Requirements
		euid       int
		netnsErr   error
		onPath     []string
		want       []Problem
		wantProbed bool
	}{
		{"nothing asked", Requirements{}, 1000, nil, nil, nil, false},
		{"root met", Requirements{Root: true, Netns: true}, 0, nil, nil, nil, true},
		{"not root skips the netns probe", Requirements{Root: true, Netns: true}, 1000, noNetns, nil, []Problem{rootProblem}, false},
		{"netns alone is probed", Requirements{Netns: true}, 1000, noNetns, nil, []Problem{netnsProblem}, true},
		{"root but netns broken", Requirements{Root: true, Netns: true}, 0, noNetns, nil, []Problem{netnsProblem}, true},
		{
			"binaries map to packages", Requirements{Binaries: []string{"ip", "nft", "iptables-nft-restore", "conntrack", "linux", "frobnicate"}},
			0, nil, []string{"ip"}, []Problem{
				{What: "nft not found", Fix: "apt-get install -y nftables (or run `make setup`)"},
				{What: "iptables-nft-restore not found", Fix: "apt-get install -y iptables (or run `make setup`)"},
				{What: "conntrack not found", Fix: "apt-get install -y conntrack (or run `make setup`)"},
				{What: "linux not found", Fix: "apt-get install -y user-mode-linux (or run `make setup`)"},
				{What: "frobnicate not found", Fix: "install frobnicate and put it on PATH"},
			}, false,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var probed bool
			got := checkRequirements(tc.req, fakeHost(tc.euid, tc.netnsErr, &probed, tc.onPath...))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("check() =\n%q\nwant\n%q", got, tc.want)
			}
			if probed != tc.wantProbed {
				t.Errorf("netns probed = %v, want %v", probed, tc.wantProbed)
			}
		})
	}
}

func TestPackageFor(t *testing.T) {
	tests := map[string]string{
		"iptables": "iptables", "iptables-restore": "iptables", "iptables-legacy-restore": "iptables",
		"iptables-nft-restore": "iptables", "iptables-save": "iptables", "iptables-legacy-save": "iptables",
		"iptables-nft-save": "iptables", "nft": "nftables", "ip": "iproute2", "conntrack": "conntrack",
		"ipset": "ipset", "ipvsadm": "ipvsadm", "linux": "user-mode-linux", "modprobe": "kmod", "vi": "",
	}
	for bin, want := range tests {
		if got := PackageFor(bin); got != want {
			t.Errorf("PackageFor(%q) = %q, want %q", bin, got, want)
		}
	}
}

func TestErrorNilWithoutProblems(t *testing.T) {
	if err := Error(nil); err != nil {
		t.Fatalf("Error(nil) = %v", err)
	}
}

func TestErrorMessageGolden(t *testing.T) {
	var probed bool
	h := fakeHost(1000, nil, &probed, "ip")
	err := Error(checkRequirements(Requirements{Root: true, Netns: true, Binaries: []string{"ip", "nft", "iptables-nft-restore", "iptables-save", "ipvsadm"}}, h))
	golden.Check(t, filepath.Join("testdata", "error.golden"), []byte(err.Error()+"\n"))
}

func TestCheckOnThisHost(t *testing.T) {
	labtest.RequireRoot(t)
	if problems := Check(Requirements{Root: true, Netns: true, Binaries: []string{"ip"}}); problems != nil {
		t.Fatalf("Check as root = %v", problems)
	}
	if err := probeNetns(); err != nil { // the probe is repeatable: it leaves nothing behind
		t.Fatal(err)
	}
}
