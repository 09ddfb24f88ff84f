package traffic

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestSpecDefaultsAndValidation(t *testing.T) {
	target := netip.MustParseAddrPort("10.96.0.10:80")
	tests := []struct {
		name    string
		spec    Spec
		want    Spec
		wantErr string
	}{
		{"zero values filled",
			Spec{Target: target, Connections: 10, Mode: ModeHTTP},
			Spec{Target: target, Connections: 10, Mode: ModeHTTP, Concurrency: 1, RequestsPerConn: 1, Timeout: DefaultTimeout}, ""},
		{"concurrency capped at connections",
			Spec{Target: target, Connections: 3, Concurrency: 8, Mode: ModeKeepAlive, RequestsPerConn: 20, Timeout: time.Second},
			Spec{Target: target, Connections: 3, Concurrency: 3, Mode: ModeKeepAlive, RequestsPerConn: 20, Timeout: time.Second}, ""},
		{"requests per conn only for keepalive",
			Spec{Target: target, Connections: 5, Mode: ModeConnect, RequestsPerConn: 9},
			Spec{Target: target, Connections: 5, Concurrency: 1, Mode: ModeConnect, RequestsPerConn: 1, Timeout: DefaultTimeout}, ""},
		{"no target", Spec{Connections: 1, Mode: ModeConnect}, Spec{}, "needs an address and a port"},
		{"no connections", Spec{Target: target, Mode: ModeConnect}, Spec{}, "connections = 0"},
		{"negative rate", Spec{Target: target, Connections: 1, Mode: ModeConnect, Rate: -1}, Spec{}, "must not be negative"},
		{"unknown mode", Spec{Target: target, Connections: 1, Mode: "udp"}, Spec{}, `mode "udp"`},
	}
	for _, tt := range tests {
		got, err := tt.spec.withDefaults()
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: err = %v, want one containing %q", tt.name, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case got != tt.want:
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestPacerReserve(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	tests := []struct {
		name  string
		calls []time.Duration // when each reserve happens, after t0
		want  []time.Duration // the slot it gets, after t0
	}{
		{"back to back calls are spaced", []time.Duration{0, 0, 0}, []time.Duration{0, 10 * ms, 20 * ms}},
		{"a late caller catches up within maxLag", []time.Duration{0, 15 * ms, 15 * ms}, []time.Duration{0, 10 * ms, 20 * ms}},
		{"beyond maxLag missed slots are dropped", []time.Duration{0, 100 * ms, 100 * ms}, []time.Duration{0, 100 * ms, 110 * ms}},
	}
	for _, tt := range tests {
		p := newPacer(100) // one slot per 10 ms
		for i, at := range tt.calls {
			if got := p.reserve(t0.Add(at)).Sub(t0); got != tt.want[i] {
				t.Errorf("%s: call %d got slot +%v, want +%v", tt.name, i, got, tt.want[i])
			}
		}
	}
	if newPacer(0) != nil {
		t.Error("newPacer(0) should mean unlimited (nil)")
	}
}
