package main

import (
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/render"
)

// TestUsageListsVersions: the help of render names every supported
// kube-proxy version, from the version table, and no placeholder is left.
func TestUsageListsVersions(t *testing.T) {
	u := withVersions(renderUsage)
	if strings.Contains(u, versionsPlaceholder) {
		t.Errorf("render usage keeps the placeholder %q", versionsPlaceholder)
	}
	for _, v := range render.KubeProxyVersions {
		if !strings.Contains(u, string(v)) {
			t.Errorf("render usage does not name kube-proxy %s", v)
		}
	}
}
