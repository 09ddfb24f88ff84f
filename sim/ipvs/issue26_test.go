package ipvs

import (
	"strings"
	"testing"
)

// TestIssue26Point14IPVSAdmRefusesWhatIPVSAdmRefuses: weights outside
// 0..65535, negative thresholds and a real server given twice are errors,
// as ipvsadm and the kernel make them.
func TestIssue26Point14IPVSAdmRefusesWhatIPVSAdmRefuses(t *testing.T) {
	const vs = "-A -t 10.0.0.1:80 -s rr\n"
	for _, tc := range []struct{ name, in, want string }{
		{"weight -5", vs + "-a -t 10.0.0.1:80 -r 10.1.1.1:80 -m -w -5\n", "line 2"},
		{"weight 2^32", vs + "-a -t 10.0.0.1:80 -r 10.1.1.1:80 -m -w 4294967296\n", "line 2"},
		{"weight 65536", vs + "-a -t 10.0.0.1:80 -r 10.1.1.1:80 -m -w 65536\n", "line 2"},
		{"upper threshold -1", vs + "-a -t 10.0.0.1:80 -r 10.1.1.1:80 -m -x -1\n", "line 2"},
		{"duplicate real server", vs + "-a -t 10.0.0.1:80 -r 10.1.1.1:80 -m -w 1\n-a -t 10.0.0.1:80 -r 10.1.1.1:80 -m -w 2\n", "line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseIPVSAdm(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
	ok := vs + "-a -t 10.0.0.1:80 -r 10.1.1.1:80 -m -w 0\n-a -t 10.0.0.1:80 -r 10.1.1.2:80 -m -w 65535\n"
	if _, err := ParseIPVSAdm(strings.NewReader(ok)); err != nil {
		t.Errorf("weights 0 and 65535: %v", err)
	}
}
