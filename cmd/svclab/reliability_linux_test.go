package main

// One test per point of the reliability issue (what broke when svclab was
// tried as an adversary would try it), named after it. These need root and
// run the built binary; the unprivileged points are in reliability_test.go.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svclab/svclab/sim/results"
)

// upLab starts `svclab up split-2` and returns its run name, daemon PID and
// client namespace; the lab is taken down at the end of the test.
func upLab(t *testing.T) (run string, pid int, client string) {
	t.Helper()
	stdout, stderr, code := runSvclab(t, "up", "split-2", "--json")
	if code != 0 {
		t.Fatalf("up: exit %d: %s", code, stderr)
	}
	var st struct {
		Run         string `json:"run"`
		PID         int    `json:"pid"`
		ClientNetns string `json:"client_netns"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runSvclab(t, "down", st.Run) })
	return st.Run, st.PID, st.ClientNetns
}

func curlOK(t *testing.T, clientNetns string) bool {
	t.Helper()
	return exec.Command("ip", "netns", "exec", clientNetns, "curl", "-s", "-m", "5", "http://10.96.0.10/").Run() == nil
}

// Point 1: a signal while a big lab is being built stops the build and
// removes everything at once, exit 130/143.
func TestPoint01SignalDuringBuildLeavesNothing(t *testing.T) {
	build := filepath.Join(t.TempDir(), "build.yaml")
	if err := os.WriteFile(build, []byte(chaosBuild()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd, prefix := startSvclab(t, "run", build, "--out", filepath.Join(t.TempDir(), "run"))
		waitFor(t, 30*time.Second, "the build to start", func() bool { return len(namespacesOf(t, prefix)) >= 20 })
		start := time.Now()
		_ = cmd.Process.Signal(sig)
		_ = cmd.Wait()
		if code, want := cmd.ProcessState.ExitCode(), 128+int(sig); code != want {
			t.Errorf("%v: exit %d, want %d", sig, code, want)
		}
		if left := namespacesOf(t, prefix); len(left) > 0 {
			t.Errorf("%v: %d namespaces left, e.g. %v", sig, len(left), left[0])
		}
		t.Logf("%v: stopped and removed in %v", sig, time.Since(start).Round(time.Millisecond))
	}
}

// Point 2: kill -9 of an IPVS run; `svclab cleanup` kills the guest's
// processes and removes its temp dirs.
func TestPoint02KilledGuestIsFoundByCleanup(t *testing.T) {
	// Guests and directories that exist before the run (another user's
	// run, a test's) are not this run's: only new ones must go.
	guestsBefore, dirsBefore := guestProcesses(), guestDirs()
	cmd := exec.Command(svclabBinary(t), "run", "ipvs-rr", "--connections", "1000000", "--out", filepath.Join(t.TempDir(), "run"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the guest to boot", func() bool {
		return len(newOf(guestProcesses(), guestsBefore)) > 0
	})
	time.Sleep(2 * time.Second)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if out, err := exec.Command(svclabBinary(t), "cleanup").CombinedOutput(); err != nil {
		t.Fatalf("cleanup: %v\n%s", err, out)
	}
	waitFor(t, 10*time.Second, "no user-mode-linux process of the run", func() bool {
		return len(newOf(guestProcesses(), guestsBefore)) == 0
	})
	if left := newOf(guestDirs(), dirsBefore); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}

// guestProcesses lists the PIDs of the user-mode-linux processes running.
func guestProcesses() []string {
	out, _ := exec.Command("pgrep", "-f", "^/usr/bin/linux ").Output()
	return strings.Fields(string(out))
}

// guestDirs lists the guests' temporary and shared-memory directories.
func guestDirs() []string {
	var out []string
	for _, pattern := range []string{"/tmp/svl-uml-*", "/dev/shm/svl-uml-*"} {
		m, _ := filepath.Glob(pattern)
		out = append(out, m...)
	}
	return out
}

// newOf returns the entries of now that were not in before.
func newOf(now, before []string) []string {
	var out []string
	for _, x := range now {
		if !slices.Contains(before, x) {
			out = append(out, x)
		}
	}
	return out
}

// Point 5: down and cleanup never signal a process that merely has a
// recorded PID: a dead owner's lease naming a live, unrelated process.
func TestPoint05RecordedPIDIsCheckedBeforeSignalling(t *testing.T) {
	bystander := exec.Command("sleep", "60")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer bystander.Process.Kill()
	lease := map[string]any{"prefix": "svl-dead1", "kind": "up", "owner": map[string]any{"pid": bystander.Process.Pid, "start": 1},
		"processes": []map[string]any{{"pid": bystander.Process.Pid, "start": 1}}}
	data, _ := json.Marshal(lease)
	path := "/run/svclab/svl-dead1.lease"
	if err := os.MkdirAll("/run/svclab", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	if _, stderr, code := runSvclab(t, "down", "svl-dead1"); code != 0 {
		t.Fatalf("down of a dead lab: exit %d: %s", code, stderr)
	}
	if err := bystander.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatal("down signalled a process whose start time does not match the lease")
	}
	if _, stderr, code := runSvclab(t, "down", "../../x"); code != 2 || !strings.Contains(stderr, "not a run name") {
		t.Errorf("down ../../x: exit %d, %q; want 2 and 'not a run name'", code, stderr)
	}
}

// Point 6: cleanup refuses positional arguments, leaves live labs, and never
// removes a namespace or file it did not record.
func TestPoint06CleanupRemovesOnlyWhatDeadRunsRecorded(t *testing.T) {
	if _, stderr, code := runSvclab(t, "cleanup", "svl-2604"); code != 2 || !strings.Contains(stderr, "--prefix") {
		t.Fatalf("cleanup svl-2604: exit %d %q; want 2 and a hint at --prefix", code, stderr)
	}
	hand := "svl-hand" + strconv.Itoa(os.Getpid()%10000)
	if out, err := exec.Command("ip", "netns", "add", hand).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	defer exec.Command("ip", "netns", "del", hand).Run()
	inside := exec.Command("ip", "netns", "exec", hand, "sleep", "60")
	if err := inside.Start(); err != nil {
		t.Fatal(err)
	}
	defer inside.Process.Kill()
	plain := "/run/netns/svl-plainfile"
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(plain)
	run, _, client := upLab(t)
	stdout, stderr, code := runSvclab(t, "cleanup")
	if code != 0 {
		t.Fatalf("cleanup: exit %d: %s", code, stderr)
	}
	for _, p := range []string{"/run/netns/" + hand, plain} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("cleanup removed %s, which no lease recorded", p)
		}
	}
	if !strings.Contains(stdout, "left live up "+run) || !curlOK(t, client) {
		t.Errorf("the live lab %s was not left alone:\n%s", run, stdout)
	}
}

// Acceptance: two concurrent runs and one up lab, then `svclab cleanup`:
// both runs finish, the lab keeps answering, cleanup says it left three.
func TestCleanupLeavesConcurrentLiveLabs(t *testing.T) {
	_, _, client := upLab(t)
	var runs [2]*exec.Cmd
	for i := range runs {
		runs[i], _ = startSvclab(t, "run", "split-2", "--dataplane", "iptables-nft", "--connections", "20000", "--out", filepath.Join(t.TempDir(), "run"))
	}
	time.Sleep(time.Second)
	stdout, stderr, code := runSvclab(t, "cleanup")
	if code != 0 || !strings.Contains(stdout, "left 3 live lab(s)") {
		t.Errorf("cleanup: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	for i, r := range runs {
		if err := r.Wait(); err != nil {
			t.Errorf("run %d after cleanup: %v", i, err)
		}
	}
	if !curlOK(t, client) {
		t.Error("the up lab stopped answering after cleanup")
	}
}

// Point 7: a full disk stops the run with the file named and "no space left
// on device", exit 1, results.jsonl ending at a whole record. The tmpfs is
// mounted in a private mount namespace, so the host never sees it.
func TestPoint07FullDiskStopsAtAWholeRecord(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "kept.jsonl")
	// The mount point is made in the test's own temporary directory, which
	// the test removes (the tmpfs goes with the mount namespace).
	script := `mnt=$(mktemp -d "$4/mnt.XXXXXX") && mount -t tmpfs -o size=48k tmpfs "$mnt" && "$1" run "$2" --out "$mnt/run" 2>"$3.err"; code=$?; cp "$mnt/run/results.jsonl" "$3"; exit $code`
	sweep := filepath.Join("testdata", "sweep-tiny.yaml")
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", svclabBinary(t), sweep, keep, dir)
	_ = cmd.Run()
	stderr, _ := os.ReadFile(keep + ".err")
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(stderr), "no space left on device") || !strings.Contains(string(stderr), "results.jsonl") {
		t.Fatalf("exit %d, stderr:\n%s\nwant 1, naming results.jsonl and 'no space left on device'", code, stderr)
	}
	data, err := os.ReadFile(keep)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("results.jsonl does not end at a whole record (%d bytes)", len(data))
	}
	if _, warnings, err := results.ReadRecords(keep); err != nil || len(warnings) > 0 {
		t.Fatalf("results.jsonl: %v %v", err, warnings)
	}
}

// Point 8: an interrupted run says so: exit 130/143, an interrupted record,
// and no "completed results" line when nothing completed.
func TestPoint08InterruptedRunsSaySo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	cmd, prefix := startSvclab(t, "run", "split-2", "--dataplane", "iptables-nft", "--connections", "5000000", "--out", out)
	waitFor(t, 30*time.Second, "the lab", func() bool { return len(namespacesOf(t, prefix)) >= 4 })
	time.Sleep(500 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit %d, want 143", code)
	}
	recs, _, err := results.ReadRecords(out)
	if err != nil || len(recs) == 0 || recs[len(recs)-1].Type != results.TypeInterrupted {
		t.Fatalf("last record is not an interrupted record: %v %+v", err, recs)
	}
	if s := recs[len(recs)-1].Interrupted; s.Signal != "terminated" || !strings.Contains(s.Completed, "0 of 1 planned") {
		t.Errorf("interrupted record %+v", s)
	}
}

// Point 14: meta.json records the commit svclab was built from, not that of
// the directory it runs in.
func TestPoint14MetaRecordsTheBinarysCommit(t *testing.T) {
	bin := svclabBinary(t)
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "unknown"
	for _, line := range strings.Split(string(info), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision=") {
			want = strings.TrimPrefix(f[1], "vcs.revision=")[:12]
		}
	}
	other := t.TempDir()
	for _, argv := range [][]string{{"git", "init", "-q"}, {"git", "-c", "user.email=x@y", "-c", "user.name=x", "commit", "-q", "--allow-empty", "-m", "other"}} {
		c := exec.Command(argv[0], argv[1:]...)
		c.Dir = other
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", argv, err, out)
		}
	}
	cmd := exec.Command(bin, "run", "split-2", "--dataplane", "iptables-nft", "--connections", "200", "--out", "run")
	cmd.Dir = other
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	m, err := results.ReadMeta(filepath.Join(other, "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.GitCommit, want) {
		t.Errorf("meta git commit %q, want the binary's %q", m.GitCommit, want)
	}
}

// Point 13 (the lab half): without root, cleanup says "needs root" and
// nothing else; a failed `up` leaves no log, state or lease behind.
func TestPoint13LabCommandsSayWhatIsWrong(t *testing.T) {
	bin := svclabBinary(t)
	cleanup := exec.Command(bin, "cleanup")
	cleanup.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stdout, stderr strings.Builder
	cleanup.Stdout, cleanup.Stderr = &stdout, &stderr
	_ = cleanup.Run()
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "needs root") {
		t.Errorf("cleanup as nobody: stdout %q, stderr %q; want only 'needs root'", stdout.String(), stderr.String())
	}
	before, _ := filepath.Glob("/run/svclab/*")
	up := exec.Command(bin, "up", "split-2", "--dataplane", "nftables")
	up.Env = append(os.Environ(), "PATH=/nonexistent")
	if out, err := up.CombinedOutput(); err == nil {
		t.Fatalf("up without nft on PATH succeeded:\n%s", out)
	}
	after, _ := filepath.Glob("/run/svclab/*")
	if len(after) > len(before) {
		t.Errorf("a failed up left %v (before: %v)", after, before)
	}
}
