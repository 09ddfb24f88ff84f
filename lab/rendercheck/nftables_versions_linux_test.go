package rendercheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"strings"
	"testing"

	"github.com/svclab/svclab/lab/labtest"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/render"
	rendernft "github.com/svclab/svclab/sim/render/nftables"
)

// TestNFTablesVersionsLoad loads both kube-proxy layouts (v1.35 and
// v1.37) with the real nft in scratch namespaces: `nft -c -f`, then the
// script, then the script again (a full sync over its own result). The
// kernel must then hold every rule and element the script adds.
func TestNFTablesVersionsLoad(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "nft")
	for _, v := range render.KubeProxyVersions {
		for name, m := range nftScenarios(t) {
			t.Run(string(v)+"/"+name, func(t *testing.T) {
				var script bytes.Buffer
				if _, err := rendernft.Render(&script, m, rendernft.Options{Version: v}); err != nil {
					t.Fatal(err)
				}
				ns := labtest.ScratchNetns(t)
				nft(t, ns, script.Bytes(), "-c", "-f", "-")
				nft(t, ns, script.Bytes(), "-f", "-")
				nft(t, ns, script.Bytes(), "-f", "-")
				k := kernelState(t, ns)
				rules, elements := strings.Count(script.String(), "\nadd rule "), strings.Count(script.String(), "\nadd element ")
				if k.rules() != rules || k.elements() != elements {
					t.Fatalf("kernel holds %d rules and %d elements, the script adds %d and %d", k.rules(), k.elements(), rules, elements)
				}
			})
		}
	}
}

// TestNFTablesVersionsIncremental applies each one-endpoint partial sync
// over a full sync, in both layouts, and compares the kernel's table with
// the one a full sync of the result gives in a second namespace.
func TestNFTablesVersionsIncremental(t *testing.T) {
	labtest.RequireRoot(t)
	labtest.RequireBinary(t, "nft")
	for _, v := range render.KubeProxyVersions {
		for name, m := range nftScenarios(t) {
			if name != "3-endpoints" && name != "mixed-shapes" {
				continue
			}
			t.Run(string(v)+"/"+name, func(t *testing.T) {
				opts := rendernft.Options{Version: v}
				ns, fresh := labtest.ScratchNetns(t), labtest.ScratchNetns(t)
				nft(t, ns, renderNFT(t, m, opts), "-f", "-")
				for i := 0; i < m.Services.Len(); i++ {
					ep := model.Endpoint{IP: netip.AddrFrom4([4]byte{10, 131, 0, byte(i + 1)}), Ready: true, Node: m.Cluster.NodeName}
					var inc bytes.Buffer
					if _, err := rendernft.RenderIncremental(&inc, m, i, ep, opts); err != nil {
						t.Fatal(err)
					}
					nft(t, ns, inc.Bytes(), "-c", "-f", "-")
					nft(t, ns, inc.Bytes(), "-f", "-")
					m = withEndpoint(m, i, ep)
					nft(t, fresh, nil, "flush", "ruleset")
					nft(t, fresh, renderNFT(t, m, opts), "-f", "-")
					got, want := kernelState(t, ns).String(), kernelState(t, fresh).String()
					if got != want {
						t.Fatalf("after the partial sync of service %d the kernel holds\n%s\nbut a full sync gives\n%s", i, got, want)
					}
				}
			})
		}
	}
}

func renderNFT(t *testing.T, m *model.Model, opts rendernft.Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := rendernft.Render(&b, m, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// nftKernel is the kube-proxy table as `nft -j list table` gives it: the
// rules of each chain (as JSON, handles dropped) and the elements of each
// set and map (sorted). Service chains without rules are left out:
// kube-proxy flushes stale chains and deletes them in a later transaction.
type nftKernel struct {
	chains map[string][]string
	sets   map[string][]string
}

func (k nftKernel) rules() int {
	n := 0
	for _, r := range k.chains {
		n += len(r)
	}
	return n
}

func (k nftKernel) elements() int {
	n := 0
	for _, e := range k.sets {
		n += len(e)
	}
	return n
}

func (k nftKernel) String() string {
	var lines []string
	for c, rules := range k.chains {
		if len(rules) == 0 && strings.Contains(c, "/") {
			continue
		}
		lines = append(lines, fmt.Sprintf("chain %s: %s", c, strings.Join(rules, " ; ")))
	}
	for s, elems := range k.sets {
		lines = append(lines, fmt.Sprintf("set %s: %s", s, strings.Join(elems, " , ")))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func kernelState(t *testing.T, ns string) nftKernel {
	t.Helper()
	var listing struct {
		Nftables []map[string]json.RawMessage `json:"nftables"`
	}
	if err := json.Unmarshal(nft(t, ns, nil, "-j", "list", "table", "ip", "kube-proxy"), &listing); err != nil {
		t.Fatalf("nft -j list: %v", err)
	}
	k := nftKernel{chains: map[string][]string{}, sets: map[string][]string{}}
	for _, obj := range listing.Nftables {
		for kind, raw := range obj {
			var o struct {
				Name  string            `json:"name"`
				Chain string            `json:"chain"`
				Expr  json.RawMessage   `json:"expr"`
				Elem  []json.RawMessage `json:"elem"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				continue // metainfo
			}
			switch kind {
			case "chain":
				if _, ok := k.chains[o.Name]; !ok {
					k.chains[o.Name] = []string{}
				}
			case "rule":
				k.chains[o.Chain] = append(k.chains[o.Chain], string(o.Expr))
			case "set", "map":
				elems := []string{}
				for _, e := range o.Elem {
					elems = append(elems, string(e))
				}
				sort.Strings(elems)
				k.sets[o.Name] = elems
			}
		}
	}
	return k
}
