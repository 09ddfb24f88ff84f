package ebpf

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf/link"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/topo"
)

func linkIDs(t *testing.T) map[link.ID]LinkInfo {
	t.Helper()
	links, err := ListLinks()
	if err != nil {
		t.Fatal(err)
	}
	out := map[link.ID]LinkInfo{}
	for _, l := range links {
		out[l.ID] = l
	}
	return out
}

// TestHostUntouched: while the dataplanes run, their links are the tcx
// links on the client veth and the connect4 link on the lab's cgroup; after
// Close none of them is left and the cgroup is gone. (Other processes may
// make or drop links meanwhile; only ours are judged.)
func TestHostUntouched(t *testing.T) {
	l := newLab(t, 1, false)
	before := linkIDs(t)
	tc, err := NewTC(TCConfig{NodeNetns: l.topo.NodeNetns, Clients: []Veth{{Netns: l.topo.NodeNetns, Name: l.topo.ClientVeth}}})
	if err != nil {
		t.Fatal(err)
	}
	sock, err := NewSock(SockConfig{Prefix: l.topo.Prefix, ClientNetns: l.topo.ClientNetns})
	if err != nil {
		t.Fatal(errJoin(err, tc.Close()))
	}
	cgPath := sock.CgroupPath()
	idx, err := ifindex(Veth{Netns: l.topo.NodeNetns, Name: l.topo.ClientVeth})
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(cgPath, &st); err != nil {
		t.Fatal(err)
	}
	during := linkIDs(t)
	ours := append(tc.LinkIDs(), sock.LinkIDs()...)
	if len(ours) != 3 {
		t.Fatalf("%d links held, want 3 (tcx ingress, tcx egress, connect4)", len(ours))
	}
	for _, id := range ours {
		li, ok := during[id]
		switch {
		case !ok:
			t.Errorf("link %d is not in the kernel's list", id)
		case li.Type == link.TCXType && li.Ifindex != uint32(idx):
			t.Errorf("tcx link %d on ifindex %d, want the client veth's %d", id, li.Ifindex, idx)
		case li.Type == link.CgroupType && li.CgroupID != st.Ino:
			t.Errorf("cgroup link %d on cgroup %d, want %s (%d)", id, li.CgroupID, cgPath, st.Ino)
		}
		if _, existed := before[id]; existed {
			t.Errorf("link %d existed before the dataplanes", id)
		}
	}
	if err := tc.Close(); err != nil {
		t.Error(err)
	}
	if err := sock.Close(); err != nil {
		t.Error(err)
	}
	after := linkIDs(t)
	for _, id := range ours {
		if _, ok := after[id]; ok {
			t.Errorf("link %d is still there after Close", id)
		}
	}
	if _, err := os.Stat(cgPath); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still there after Close (%v)", cgPath, err)
	}
	t.Logf("links: %d before, %d during, %d after", len(before), len(during), len(after))
}

// killedEnv makes the test binary act as a run that is killed mid-way.
const killedEnv = "SVCLAB_EBPF_KILLED_CHILD"

// TestKilledRun starts a child that builds a lab, attaches both dataplanes,
// joins the cgroup, reports its link IDs and is killed with SIGKILL. Its
// links must be gone with it; Cleanup then removes its cgroup and
// topo.Cleanup its namespaces, leaving nothing.
func TestKilledRun(t *testing.T) {
	if os.Getenv(killedEnv) != "" {
		killedChild()
		return
	}
	labtest.RequireRoot(t)
	prefix := topo.NewPrefix()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledRun$")
	cmd.Env = append(os.Environ(), killedEnv+"="+prefix)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _, _ = topo.Cleanup(prefix); _, _ = Cleanup(prefix) })
	var ids []link.ID
	var line string
	for {
		var b [1]byte
		if _, err := out.Read(b[:]); err != nil {
			t.Fatalf("child ended before reporting: %v (%q)", err, line)
		}
		if b[0] == '\n' {
			if strings.HasPrefix(line, "error") {
				t.Fatalf("child: %s", line)
			}
			if rest, ok := strings.CutPrefix(line, "links "); ok {
				for _, f := range strings.Fields(rest) {
					var id link.ID
					fmt.Sscan(f, &id)
					ids = append(ids, id)
				}
				break
			}
			line = ""
			continue
		}
		line += string(b[:])
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for _, id := range ids {
		for {
			if _, ok := linkIDs(t)[id]; !ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("link %d outlived its process", id)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	mount, err := CgroupMount()
	if err != nil {
		t.Fatal(err)
	}
	cg := filepath.Join(mount, prefix+cgroupSuffix)
	if _, err := os.Stat(cg); err != nil {
		t.Fatalf("the killed run's cgroup %s should be left for Cleanup: %v", cg, err)
	}
	removed, err := Cleanup(prefix)
	if err != nil || len(removed) != 1 || removed[0] != "cgroup "+cg {
		t.Errorf("Cleanup(%s) = %v, %v; want [cgroup %s]", prefix, removed, err, cg)
	}
	if _, err := topo.Cleanup(prefix); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(cg); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still there (%v)", cg, err)
	}
	t.Logf("child held links %v; all gone after SIGKILL; Cleanup removed %v", ids, removed)
}

// killedChild is the killed run: it never returns normally.
func killedChild() {
	prefix := os.Getenv(killedEnv)
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(2)
	}
	tp, err := topo.Build(context.Background(), topo.Spec{Prefix: prefix, Pods: []topo.Pod{{IP: podIP(0)}}})
	if err != nil {
		fail(err)
	}
	tc, err := NewTC(TCConfig{NodeNetns: tp.NodeNetns, Clients: []Veth{{Netns: tp.NodeNetns, Name: tp.ClientVeth}}})
	if err != nil {
		fail(err)
	}
	sock, err := NewSock(SockConfig{Prefix: prefix, ClientNetns: tp.ClientNetns})
	if err != nil {
		fail(err)
	}
	if _, err := sock.Join(); err != nil {
		fail(err)
	}
	fmt.Print("links")
	for _, id := range append(tc.LinkIDs(), sock.LinkIDs()...) {
		fmt.Print(" ", id)
	}
	fmt.Println()
	time.Sleep(time.Minute) // killed here
	os.Exit(3)
}

// TestCleanupRefusesForeignPrefixes: Cleanup only touches svclab names.
func TestCleanupRefusesForeignPrefixes(t *testing.T) {
	if _, err := Cleanup("user.slice"); err == nil {
		t.Error("Cleanup(user.slice) did not refuse")
	}
	for _, c := range []struct {
		name, prefix string
		want         bool
	}{
		{"svl-3f9a-ebpf", "svl-3f9a", true},
		{"svl-3f9ab-ebpf", "svl-3f9a", false},
		{"svl-3f9ab-ebpf", "svl-", true},
		{"system.slice", "svl-", false},
	} {
		if got := belongsToRun(c.name, c.prefix); got != c.want {
			t.Errorf("belongsToRun(%q, %q) = %v, want %v", c.name, c.prefix, got, c.want)
		}
	}
}
