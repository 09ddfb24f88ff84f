package scenario

import "testing"

func TestKubeProxyDefaultsAndOverride(t *testing.T) {
	sc, err := Load("split-2")
	if err != nil {
		t.Fatal(err)
	}
	if sc.KubeProxy.Engine != "native" || sc.KubeProxy.Version != "1.37" {
		t.Fatalf("%+v", sc.KubeProxy)
	}
	s2, err := sc.WithKubeProxy("kube-proxy", "1.35")
	if err != nil || s2.KubeProxy.Version != "1.35" || s2.Hash() != sc.Hash() {
		t.Fatalf("%v %+v", err, s2.KubeProxy)
	}
	if _, err := sc.WithKubeProxy("bogus", ""); err == nil {
		t.Fatal("bogus engine accepted")
	}
}
