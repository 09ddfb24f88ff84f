package main

import (
	"bytes"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

func TestClusterRunDryRunPrintsJobs(t *testing.T) {
	var out, errw bytes.Buffer
	err := runCluster([]string{"run", "--dry-run", "--image", "svclab:test", "--namespace", "lab",
		"--pool", "a=pool=a", "--pool", "b=pool=b", "--dataplane", "iptables-nft,nftables"}, &out, &errw)
	if err != nil {
		t.Fatalf("dry run: %v (%s)", err, errw.String())
	}
	docs := strings.Split(out.String(), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%d YAML documents, want 2 (one Job per pool):\n%s", len(docs), out.String())
	}
	for i, d := range docs {
		var j batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(d), &j); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		if j.Kind != "Job" || *j.Spec.Completions != 2 || j.Namespace != "lab" {
			t.Errorf("document %d: kind %s completions %d namespace %s", i, j.Kind, *j.Spec.Completions, j.Namespace)
		}
	}
}

func TestClusterRunBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--dry-run", "--pool", "a=pool=a"},                                      // no image
		{"run", "--dry-run", "--image", "i"},                                            // no pool
		{"run", "--dry-run", "--image", "i", "--pool", "a=pool=a", "--scenario", "./x"}, // not embedded
		{"run", "--dry-run", "--image", "i", "--pool", "a=pool=a", "--dataplane", "pf"},
		{"frobnicate"},
	} {
		var out, errw bytes.Buffer
		if err := runCluster(args, &out, &errw); exitCode(err, commands["cluster"], &errw) != 2 {
			t.Errorf("cluster %v: %v, want exit 2", args, err)
		}
	}
}
