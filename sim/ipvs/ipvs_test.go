package ipvs

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseIPVSAdm(t *testing.T) {
	tab, err := ParseIPVSAdm(bytes.NewReader(readTestdata(t, "ipvsadm-Sn.txt")))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Services) != 4 {
		t.Fatalf("%d services", len(tab.Services))
	}
	s := tab.Services[1]
	if s.Key() != "-t 10.96.5.5:80" || s.Scheduler != "wrr" || len(s.Dests) != 3 || s.Dests[0].Weight != 2 || s.Dests[0].Method != "masq" {
		t.Errorf("service 2 = %+v", s)
	}
	if fw := tab.Services[3]; fw.FWMark != 100 || fw.Persistent != 300 {
		t.Errorf("fwmark service = %+v", fw)
	}
	var b bytes.Buffer
	if _, err := tab.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	printed := b.String()
	if printed != string(readTestdata(t, "ipvsadm-Sn.txt")) {
		t.Errorf("printed differently from ipvsadm:\n%s", printed)
	}
	back, err := ParseIPVSAdm(strings.NewReader(printed))
	if err != nil {
		t.Fatal(err)
	}
	var b2 bytes.Buffer
	_, _ = back.WriteTo(&b2)
	if printed != b2.String() {
		t.Errorf("round trip differs:\n%s\n%s", printed, b2.String())
	}
}

func TestParseIPVSAdmErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"-a -t 10.0.0.1:80 -r 10.1.1.1:80 -m -w 1\n", "before its virtual server"},
		{"-A -t 10.0.0.1:80 -s rr\n-A -t 10.0.0.1:80 -s rr\n", "given twice"},
		{"-A -t kubernetes:https -s rr\n", "ipvsadm -n prints numbers"},
		{"-A -t 10.0.0.1:80 -s rr\n-a -t 10.0.0.1:80 -m\n", "no -r"},
		{"-E -t 10.0.0.1:80\n", "want -A"},
	} {
		if _, err := ParseIPVSAdm(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestIPSetMatch(t *testing.T) {
	sets, err := ParseIPSetSave(bytes.NewReader(readTestdata(t, "ipset-save.txt")))
	if err != nil {
		t.Fatal(err)
	}
	probe := func(src, dst string, proto uint8, dport uint16) Probe {
		return Probe{Src: netip.MustParseAddr(src), Dst: netip.MustParseAddr(dst), Proto: proto, SPort: 40000, DPort: dport}
	}
	tests := []struct {
		set   string
		p     Probe
		flags []string
		want  bool
	}{
		{"KUBE-CLUSTER-IP", probe("10.0.0.1", "10.96.0.10", 17, 53), []string{"dst", "dst"}, true},
		{"KUBE-CLUSTER-IP", probe("10.0.0.1", "10.96.0.10", 6, 53), []string{"dst", "dst"}, true},
		{"KUBE-CLUSTER-IP", probe("10.0.0.1", "10.96.0.10", 6, 54), []string{"dst", "dst"}, false},
		{"KUBE-LOOP-BACK", probe("10.244.1.5", "10.244.1.5", 6, 8080), []string{"dst", "dst", "src"}, true},
		{"KUBE-NODE-PORT-TCP", probe("1.1.1.1", "192.168.0.2", 17, 30080), []string{"dst"}, true},
		{"nets", probe("10.1.2.3", "1.1.1.1", 6, 1), []string{"src"}, true},
		{"nets", probe("10.9.0.1", "1.1.1.1", 6, 1), []string{"src"}, false}, // nomatch
		{"all", probe("10.1.2.3", "1.1.1.1", 6, 1), []string{"src"}, true},
	}
	for _, tc := range tests {
		got, err := sets[tc.set].Match(sets, tc.p, tc.flags)
		if err != nil || got != tc.want {
			t.Errorf("%s %v: %v %v, want %v", tc.set, tc.p, got, err, tc.want)
		}
	}
	var b bytes.Buffer
	_, _ = sets.WriteTo(&b)
	back, err := ParseIPSetSave(&b)
	if err != nil || len(back) != len(sets) {
		t.Fatalf("round trip: %v (%d sets)", err, len(back))
	}
}
