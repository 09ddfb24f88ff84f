package podserver

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

func TestPodHandlerBody(t *testing.T) {
	tests := []struct {
		pod   string
		local net.Addr
		want  string
	}{
		{"web-0", &net.TCPAddr{IP: net.IPv4(10, 96, 0, 10), Port: 80},
			"web-0\nremote 10.0.0.1:4000\nlocal 10.96.0.10:80\n"},
		{"sink", nil, "sink\nremote 10.0.0.1:4000\nlocal unknown\n"},
	}
	var requests atomic.Uint64
	for i, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = "10.0.0.1:4000"
		if tt.local != nil {
			req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, tt.local))
		}
		rec := httptest.NewRecorder()
		podHandler(tt.pod, &requests).ServeHTTP(rec, req)
		if got := rec.Body.String(); got != tt.want {
			t.Errorf("%s: body %q, want %q", tt.pod, got, tt.want)
		}
		if got := requests.Load(); got != uint64(i+1) {
			t.Errorf("%s: requests = %d, want %d", tt.pod, got, i+1)
		}
	}
}
