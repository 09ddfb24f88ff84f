package ipvs

import (
	"strings"
	"testing"
)

// The fakes must refuse what the real tools refuse, or they prove nothing.

func TestIPVSAdmReplayRejects(t *testing.T) {
	const vs = "-A -t 10.96.0.10:80 -s rr\n"
	tests := []struct{ name, in, wantErr string }{
		{"server before service", "-a -t 10.96.0.10:80 -r 10.0.0.1:80 -m -w 1\n", "not defined"},
		{"duplicate service", vs + vs, "already exists"},
		{"duplicate server", vs + "-a -t 10.96.0.10:80 -r 10.0.0.1:80 -m\n-a -t 10.96.0.10:80 -r 10.0.0.1:80 -m\n", "already exists"},
		{"no scheduler", "-A -t 10.96.0.10:80\n", "no -s"},
		{"unknown scheduler", "-A -t 10.96.0.10:80 -s fastest\n", "unknown scheduler"},
		{"flag for other scheduler", "-A -t 10.96.0.10:80 -s rr -b mh-port\n", "incompatible"},
		{"bad timeout", "-A -t 10.96.0.10:80 -s rr -p 0\n", "illegal timeout"},
		{"weight too big", vs + "-a -t 10.96.0.10:80 -r 10.0.0.1:80 -m -w 70000\n", "illegal weight"},
		{"two forwarding methods", vs + "-a -t 10.96.0.10:80 -r 10.0.0.1:80 -m -g\n", "multiple"},
		{"zero port", "-A -t 10.96.0.10 -s rr\n", "zero port"},
		{"bad address", "-A -t 10.96.0.300:80 -s rr\n", "illegal address"},
		{"unknown option", "-A -t 10.96.0.10:80 -s rr --fast\n", "invalid option"},
		{"server option on service", "-A -t 10.96.0.10:80 -s rr -w 1\n", "illegal real-server option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := replayIPVSAdm(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
	tab, err := replayIPVSAdm(vs + "-a -t 10.96.0.10:80 -r 10.0.0.1:8080 -g\n")
	if err != nil {
		t.Fatal(err)
	}
	if rs := tab.services["tcp 10.96.0.10:80"].dests; rs["10.0.0.1:80"].forward != "g" {
		t.Errorf("direct routing must force the service port, got %v", rs)
	}
}

func TestIPSetReplayRejects(t *testing.T) {
	const cs = "create S hash:ip,port family inet hashsize 1024 maxelem 2\n"
	tests := []struct{ name, in, wantErr string }{
		{"add to missing set", "add S 1.2.3.4,tcp:80\n", "does not exist"},
		{"bad member", cs + "add S 1.2.3.4\n", "want 2 parts"},
		{"bad protocol", cs + "add S 1.2.3.4,icmpx:80\n", "proto:port"},
		{"duplicate without -exist", cs + "add S 1.2.3.4,tcp:80\nadd S 1.2.3.4,tcp:80\n", "already added"},
		{"full", cs + "add S 1.2.3.4,tcp:80\nadd S 1.2.3.4,tcp:81\nadd S 1.2.3.4,tcp:82\n", "full"},
		{"unknown type", "create S hash:mac\n", "unknown set type"},
		{"bitmap without range", "create B bitmap:port\n", "malformed"},
		{"IPv6 in an inet set", cs + "add S fd00::1,tcp:80\n", "bad inet address"},
		{"IPv4 in an inet6 set", "create S6 hash:ip family inet6 hashsize 1024 maxelem 2\nadd S6 10.0.0.1\n", "bad inet6 address"},
		{"zero network", "create N hash:ip,port,net family inet hashsize 1024 maxelem 2\nadd N 10.0.0.1,tcp:80,0.0.0.0/0\n", "non-zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := replayIPSet(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestIPTablesCheckRejects(t *testing.T) {
	sets, err := replayIPSet("create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem 65536\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, in, wantErr string }{
		{"undeclared chain", "*nat\n-A KUBE-X -j ACCEPT\nCOMMIT\n", "undeclared chain"},
		{"missing jump target", "*nat\n:A - [0:0]\n-A A -j B\nCOMMIT\n", "non-existent chain"},
		{"missing set", "*nat\n:A - [0:0]\n-A A -m set --match-set KUBE-NONE dst -j ACCEPT\nCOMMIT\n", "not created"},
		{"wrong dimension", "*nat\n:A - [0:0]\n-A A -m set --match-set KUBE-CLUSTER-IP dst -j ACCEPT\nCOMMIT\n", "directions"},
		{"no commit", "*nat\n:A - [0:0]\n", "not committed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checkIPTables(tt.in, sets)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}
