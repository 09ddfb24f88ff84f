package driver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/kube"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
)

// syncChild makes the test binary act as `kube-proxy-driver sync` when
// re-executed inside a scratch namespace: kube-proxy runs iptables and nft
// from its own goroutines, so it must run in a process that is wholly in
// the namespace.
const syncChild = "SVCLAB_KP_DRIVER_SYNC_CHILD"

func TestMain(m *testing.M) {
	if _, ok := os.LookupEnv(loopChild); ok {
		// The lab client binds the iptables variant through PATH.
		if err := ServeLoop(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	if v, ok := os.LookupEnv(syncChild); ok {
		cleanup, err := UseIPTables(v)
		if err == nil {
			err = Serve(context.Background(), os.Stdin, os.Stdout, false)
			cleanup()
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSyncInNamespace runs kube-proxy in sync mode in a scratch namespace
// (full sync, then a partial sync adding an endpoint) and checks what it
// reports and what the kernel then holds.
func TestSyncInNamespace(t *testing.T) {
	cases := []struct {
		name, mode, variant string
		list                []string
		want                string
	}{
		{"iptables-legacy", kube.ModeIPTables, "legacy", []string{"iptables-legacy-save", "-t", "nat"}, "--to-destination 10.0.3.4:8080"},
		{"iptables-nft", kube.ModeIPTables, "nft", []string{"iptables-nft-save", "-t", "nat"}, "--to-destination 10.0.3.4:8080"},
		{"nftables", kube.ModeNFTables, "", []string{"nft", "list", "table", "ip", "kube-proxy"}, "10.0.3.4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ns := labtest.ScratchNetns(t)
			m := twoEndpoints()
			next := &model.Model{Cluster: m.Cluster, Services: kube.AddEndpoint(m.Services, 0,
				model.Endpoint{IP: netip.MustParseAddr("10.0.3.4"), Ready: true, Serving: true, Node: "node-1"})}
			req, err := kube.NewRequest(tc.mode, render.Config{}, m, next)
			if err != nil {
				t.Fatal(err)
			}
			req.OmitPayload = true
			in, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv(syncChild, tc.variant)
			out, err := netns.Output(ns, in, os.Args[0], "-test.run=^$")
			if err != nil {
				t.Fatalf("driver in %s: %v", ns, err)
			}
			syncs := parseSyncs(t, out)
			if len(syncs) != 2 {
				t.Fatalf("got %d syncs, want 2:\n%s", len(syncs), out)
			}
			for i, s := range syncs {
				if s.Error != "" || s.DurationNS <= 0 || s.PayloadBytes <= 0 || s.Full != (i == 0) {
					t.Errorf("sync %d: %+v; want no error, a duration, a payload, full only first", i, s)
				}
			}
			t.Logf("%s: full sync %.2f ms (%d bytes), partial %.2f ms (%d bytes)", tc.name,
				float64(syncs[0].DurationNS)/1e6, syncs[0].PayloadBytes, float64(syncs[1].DurationNS)/1e6, syncs[1].PayloadBytes)
			state, err := netns.Output(ns, nil, tc.list...)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(state, []byte(tc.want)) {
				t.Errorf("%s in %s lacks %q:\n%s", strings.Join(tc.list, " "), ns, tc.want, state)
			}
		})
	}
}

func parseSyncs(t *testing.T, out []byte) []kube.Sync {
	t.Helper()
	var syncs []kube.Sync
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var s kube.Sync
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("sync line %q: %v", sc.Text(), err)
		}
		syncs = append(syncs, s)
	}
	return syncs
}
