package verifytrace

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/lab/uml"
	"github.com/svclab/svclab/sim/ipvs"
	"github.com/svclab/svclab/sim/trace"
	"github.com/svclab/svclab/sim/trace/ipvstrace"
)

// ipvsadmGuestEnv tells the test binary, booted in the guest, to run the
// guest half of TestIPVSTracerOnRealIPVSAdm.
const ipvsadmGuestEnv = "SVCLAB_TEST_IPVSADM_GUEST_SIDE"

// The test binary is its own guest init.
func init() { uml.InitIfGuest(os.Args[1:]) }

// guestServices are programmed with the real ipvsadm in the guest: rr over
// three real servers, wrr with weights 2:1:1.
var guestServices = [][]string{
	{"-A", "-t", "10.96.0.1:443", "-s", "rr"},
	{"-a", "-t", "10.96.0.1:443", "-r", "10.244.1.1:6443", "-m", "-w", "1"},
	{"-a", "-t", "10.96.0.1:443", "-r", "10.244.1.2:6443", "-m", "-w", "1"},
	{"-a", "-t", "10.96.0.1:443", "-r", "10.244.1.3:6443", "-m", "-w", "1"},
	{"-A", "-t", "10.96.5.5:80", "-s", "wrr"},
	{"-a", "-t", "10.96.5.5:80", "-r", "10.244.2.1:8080", "-m", "-w", "2"},
	{"-a", "-t", "10.96.5.5:80", "-r", "10.244.2.2:8080", "-m", "-w", "1"},
	{"-a", "-t", "10.96.5.5:80", "-r", "10.244.2.3:8080", "-m", "-w", "1"},
	{"-A", "-t", "10.96.0.10:53", "-s", "sh"},
	{"-a", "-t", "10.96.0.10:53", "-r", "10.244.3.2:53", "-m", "-w", "1"},
	{"-a", "-t", "10.96.0.10:53", "-r", "10.244.3.3:53", "-m", "-w", "2"},
	{"-a", "-t", "10.96.0.10:53", "-r", "10.244.3.1:53", "-m", "-w", "1"},
}

// shClients are the sources that connect to the sh service in the guest;
// the connection table says which real server each got.
var shClients = []string{"10.250.0.1", "10.250.0.2", "10.250.0.3", "10.250.0.4", "10.250.0.5", "10.250.0.6", "10.250.0.7", "10.250.0.8"}

// TestIPVSTracerOnRealIPVSAdm boots a user-mode-linux guest (the host
// kernel has no IPVS), programs guestServices with ipvsadm, and traces the
// guest's `ipvsadm -Sn` output: 1/3 each for rr, 0.5/0.25/0.25 for wrr,
// and for sh (servers added out of order, weights 1:2:1) the real server
// of each client's IPVS connection entry.
func TestIPVSTracerOnRealIPVSAdm(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "ipvsadm")
	info, err := uml.Available()
	labtest.Require(t, err)
	if !info.HasIPVS() {
		t.Fatalf("user-mode-linux %s has no IPVS", info.Version)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	res, err := uml.Run(context.Background(), uml.Spec{
		Binary: self, Args: []string{"-test.run=^TestIPVSAdmGuestSide$", "-test.v", "-test.count=1"},
		Env: []string{ipvsadmGuestEnv + "=1"}, WorkDir: dir, Stdout: &stdout, Stderr: &stderr, Timeout: 2 * time.Minute,
	})
	t.Logf("guest %s (boot %v, run %v):\n%s%s", res.GuestKernel, res.Boot, res.Duration, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "ipvsadm-Sn.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ipvsadm -Sn in the guest:\n%s", text)
	tab, err := ipvs.ParseIPVSAdm(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ipvstrace.New(tab, nil, ipvstrace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// sh needs the order the real servers were added (ipvsadm sorts them).
	var added []netip.AddrPort
	for _, args := range guestServices {
		if args[0] == "-a" && args[2] == "10.96.0.10:53" {
			added = append(added, netip.MustParseAddrPort(args[4]))
		}
	}
	sh, err := ipvstrace.New(tab, nil, ipvstrace.Options{AddedOrder: map[string][]netip.AddrPort{"-t 10.96.0.10:53": added}})
	if err != nil {
		t.Fatal(err)
	}
	checkSH(t, sh, dir)
	for _, tc := range []struct {
		vip  string
		want []float64
	}{{"10.96.0.1:443", []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}}, {"10.96.5.5:80", []float64{0.5, 0.25, 0.25}}} {
		ap := netip.MustParseAddrPort(tc.vip)
		r, err := tr.Trace(trace.Packet{Src: netip.MustParseAddr("10.244.9.9"), Dst: ap.Addr(), DPort: ap.Port(), Proto: "tcp"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[float64]int{}
		for _, e := range r.Endpoints {
			got[math.Round(e.Probability*1e12)/1e12]++
		}
		want := map[float64]int{}
		for _, p := range tc.want {
			want[math.Round(p*1e12)/1e12]++
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: probabilities %v, want %v (%+v)", tc.vip, got, want, r.Endpoints)
		}
	}
}

func addrCmds() []string {
	var out []string
	for _, c := range shClients {
		out = append(out, "ip addr add "+c+"/32 dev lo")
	}
	return out
}

// TestIPVSAdmGuestSide runs in the guest: guestServices in a scratch
// namespace, then `ipvsadm -Sn` into the work directory.
func TestIPVSAdmGuestSide(t *testing.T) {
	if os.Getenv(ipvsadmGuestEnv) == "" {
		t.Skip("runs inside the user-mode-linux guest, started by TestIPVSTracerOnRealIPVSAdm")
	}
	ns := labtest.ScratchNetns(t)
	for _, args := range guestServices {
		if out, err := netns.Output(ns, nil, append([]string{"ipvsadm"}, args...)...); err != nil {
			t.Fatalf("ipvsadm %s: %v %s", strings.Join(args, " "), err, out)
		}
	}
	out, err := netns.Output(ns, nil, "ipvsadm", "-Sn")
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := os.WriteFile(filepath.Join(wd, "ipvsadm-Sn.txt"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	// Connect to the sh service from each client address (bound on lo);
	// the SYN creates an IPVS connection entry whatever happens next.
	for _, c := range append([]string{"ip link set lo up", "ip addr add 10.96.0.10/32 dev lo", "ip link add v0 type veth peer name v1",
		"ip link set v0 up", "ip link set v1 up", "ip route add 10.244.0.0/16 dev v0"}, addrCmds()...) {
		if out, err := netns.Output(ns, nil, strings.Fields(c)...); err != nil {
			t.Fatalf("%s: %v %s", c, err, out)
		}
	}
	for _, src := range shClients {
		_ = netns.Do(ns, func() error {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 200 * time.Millisecond}
			if c, err := d.Dial("tcp", "10.96.0.10:53"); err == nil {
				c.Close()
			}
			return nil
		})
	}
	conns, err := netns.Output(ns, nil, "ipvsadm", "-Lnc")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "ipvsadm-Lnc.txt"), conns, 0o644); err != nil {
		t.Fatal(err)
	}

}

// checkSH compares, per client, the real server of the guest's IPVS
// connection entry (ipvsadm -Lnc) with the one the tracer's sh picks.
func checkSH(t *testing.T, tr *ipvstrace.Tracer, dir string) {
	conns, err := os.ReadFile(filepath.Join(dir, "ipvsadm-Lnc.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ipvsadm -Lnc in the guest:\n%s", conns)
	got := map[string]string{} // client → real server
	for _, line := range strings.Split(string(conns), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && f[0] == "TCP" && strings.HasPrefix(f[4], "10.96.0.10:53") {
			src, _, _ := strings.Cut(f[3], ":")
			dst, _, _ := strings.Cut(f[5], ":")
			got[src] = dst
		}
	}
	if len(got) != len(shClients) {
		t.Fatalf("%d connection entries for %d clients", len(got), len(shClients))
	}
	for _, c := range shClients {
		r, err := tr.Trace(trace.Packet{Src: netip.MustParseAddr(c), Dst: netip.MustParseAddr("10.96.0.10"), DPort: 53, Proto: "tcp"})
		if err != nil {
			t.Fatal(err)
		}
		picked := ""
		for _, e := range r.Endpoints {
			if e.Probability == 1 {
				picked = e.Addr.Addr().String()
			}
		}
		if picked != got[c] {
			t.Errorf("sh for %s: tracer %s, kernel %s", c, picked, got[c])
		}
	}
}
