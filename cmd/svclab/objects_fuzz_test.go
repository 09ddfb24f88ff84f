package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/nftables"
	"github.com/svclab/svclab/sim/objects"
	"github.com/svclab/svclab/sim/render"
	"github.com/svclab/svclab/sim/scenario"
)

// fuzzNames are the names FuzzObjectNames puts into one Service, its
// EndpointSlice and its endpoint.
type fuzzNames struct{ ns, svc, port, slice, node string }

// objectsOf writes the objects of one Service with a named port and one
// ready endpoint, every name JSON-quoted (so the decoder sees it intact).
func (n fuzzNames) objectsOf() []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return []byte("apiVersion: v1\nkind: Service\nmetadata: {namespace: " + q(n.ns) + ", name: " + q(n.svc) + "}\n" +
		"spec:\n  type: NodePort\n  clusterIP: 10.96.0.10\n  ports: [{name: " + q(n.port) + ", port: 80, targetPort: 8080, nodePort: 30080}]\n---\n" +
		"apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {namespace: " + q(n.ns) + ", name: " + q(n.slice) +
		", labels: {kubernetes.io/service-name: " + q(n.svc) + "}}\naddressType: IPv4\nports: [{name: " + q(n.port) + ", port: 8080}]\n" +
		"endpoints: [{addresses: [10.244.1.2], nodeName: " + q(n.node) + "}]\n")
}

// benign is n with every name replaced by a valid one of the same use.
func (n fuzzNames) benign() fuzzNames {
	b := fuzzNames{ns: "ns", svc: "svc", slice: "svc-a", node: "node-a"}
	if n.port != "" {
		b.port = "http"
	}
	if n.node == "" {
		b.node = ""
	}
	return b
}

// renderAll renders the objects in every native mode, and with the
// kube-proxy engine when its driver is built: mode → payload.
func renderAll(t *testing.T, raw []byte, driver bool) map[string]string {
	t.Helper()
	sc, err := scenario.Parse("f.yaml", raw)
	if err != nil {
		t.Fatalf("Decode accepted the objects, the scenario loader refuses them: %v", err)
	}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, mode := range []string{"iptables", "nftables", "ipvs"} {
		var b bytes.Buffer
		if _, err := renderMode(&b, mode, m, render.Config{Version: render.LatestKubeProxy}, false); err != nil {
			t.Fatalf("render %s: %v", mode, err)
		}
		out[mode] = b.String()
		if !driver || mode == "ipvs" {
			continue
		}
		b.Reset()
		if err := renderWithKubeProxy(&b, mode, m, render.Config{Version: render.LatestKubeProxy}); err != nil {
			t.Fatalf("render --engine kube-proxy %s: %v", mode, err)
		}
		out["kube-proxy "+mode] = b.String()
	}
	return out
}

// checkRendered parses every payload with svclab's own parsers and
// compares its line count with that of the benign names' payload: no line
// may come from a name.
func checkRendered(t *testing.T, got, benign map[string]string) {
	t.Helper()
	for mode, text := range got {
		switch {
		case strings.HasSuffix(mode, "iptables"):
			if _, err := iptables.ParseString(text); err != nil {
				t.Errorf("%s: the payload does not parse: %v", mode, err)
			}
		case strings.HasSuffix(mode, "nftables"):
			if _, err := nftables.ParseString(text); err != nil {
				t.Errorf("%s: the payload does not parse: %v", mode, err)
			}
		}
		if a, b := strings.Count(text, "\n"), strings.Count(benign[mode], "\n"); a != b {
			t.Errorf("%s: %d lines, %d with valid names: a name made lines of its own:\n%s", mode, a, b, text)
		}
	}
}

// driverBuilt reports whether `make kube-proxy` built the driver the
// kube-proxy engine runs (looked up in ../../bin).
func driverBuilt(t testing.TB) bool {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "bin"))
	if os.Getenv("SVCLAB_KUBE_PROXY_DRIVERS") == "" {
		t.Setenv("SVCLAB_KUBE_PROXY_DRIVERS", dir)
	}
	_, err := os.Stat(filepath.Join(os.Getenv("SVCLAB_KUBE_PROXY_DRIVERS"), "kube-proxy-driver-"+string(render.LatestKubeProxy)))
	return err == nil
}

// FuzzObjectNames feeds names to the objects decoder (sim/objects) and
// renders what it accepts with both engines: the native renderers
// (iptables, nftables, IPVS) and, when its driver is built, kube-proxy's
// own proxiers (which trust the API server to have validated names). Every
// error is one line naming the file; every payload parses with svclab's
// iptables and nftables parsers and has as many lines as with valid names
// in their place, so no standalone line can come from a name. The seed
// corpus is in testdata/fuzz/FuzzObjectNames.
func FuzzObjectNames(f *testing.F) {
	f.Add("demo", "web", "http", "web-a", "node-1")
	f.Add("demo", "web\" -j ACCEPT\n-A INPUT -j DROP\n#", "http", "web-a", "")
	f.Add("demo\n-A KUBE-SERVICES -j DROP", "web", "http", "web-a", "node-1")
	f.Add("demo", "web", "h\"p", "web-a\nadd rule ip kube-proxy x drop", "node-1")
	f.Add("a.b", "w;b", "", "web-a", "node\u202e1")
	driver := driverBuilt(f)
	f.Fuzz(func(t *testing.T, ns, svc, port, slice, node string) {
		n := fuzzNames{ns, svc, port, slice, node}
		_, err := objects.Decode("f.yaml", n.objectsOf())
		if err != nil {
			var oe *objects.Error
			msg := err.Error()
			if !errors.As(err, &oe) || !strings.HasPrefix(msg, "f.yaml: ") || strings.ContainsAny(msg, "\n\r\x00\u202e") || len(msg) > 1000 {
				t.Fatalf("error %q (%T): want one short line naming the file", msg, err)
			}
			return
		}
		checkRendered(t, renderAll(t, n.objectsOf(), driver), renderAll(t, n.benign().objectsOf(), driver))
	})
}
