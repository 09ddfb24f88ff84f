package podserver

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
)

// podHandler answers every request with a small text body whose first line
// is the pod's name, then "remote ADDR" and "local ADDR" (the address the
// client connected to). It counts requests in requests.
func podHandler(pod string, requests *atomic.Uint64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		body := responseBody(pod, r)
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = io.WriteString(w, body)
	})
}

// responseBody renders the body for one request.
func responseBody(pod string, r *http.Request) string {
	local := "unknown"
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		local = a.String()
	}
	return pod + "\nremote " + r.RemoteAddr + "\nlocal " + local + "\n"
}
