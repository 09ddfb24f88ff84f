package ipvs

import (
	"bytes"
	"strings"
	"testing"
)

func TestSplitRoundTrip(t *testing.T) {
	m := testModel(svc3(), svc6())
	var buf bytes.Buffer
	if _, err := Render(&buf, m, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	parts, err := Split(&buf)
	if err != nil {
		t.Fatal(err)
	}
	joined := PartIPVSAdm.Header() + "\n" + string(parts.IPVSAdm) +
		PartIPSet.Header() + "\n" + string(parts.IPSet) +
		PartIPTables.Header() + "\n" + string(parts.IPTables)
	var again bytes.Buffer
	if _, err := Render(&again, m, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if joined != again.String() {
		t.Error("headers + parts do not rebuild the combined file")
	}
}

func TestSplitRejects(t *testing.T) {
	all := "# ipvsadm -R\n-A -t 1.2.3.4:80 -s rr\n# ipset restore\n# iptables-restore\n*nat\nCOMMIT\n"
	tests := []struct{ name, in, wantErr string }{
		{"missing part", "# ipvsadm -R\n# ipset restore\n", "no \"# iptables-restore\" header"},
		{"twice", all + "# ipset restore\n", "appears twice"},
		{"content first", "-A -t 1.2.3.4:80 -s rr\n" + all, "before the first part header"},
		{"empty", "", "no \"# ipvsadm -R\" header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Split(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
	if _, err := Split(strings.NewReader("\n" + all)); err != nil {
		t.Errorf("a leading blank line was rejected: %v", err)
	}
}

func TestRenderJumpsGolden(t *testing.T) {
	var buf bytes.Buffer
	st, err := RenderJumps(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if st.Rules != len(jumpRules) {
		t.Errorf("rules = %d, want %d", st.Rules, len(jumpRules))
	}
	compareGolden(t, "testdata/jumps.golden", buf.Bytes())
}
