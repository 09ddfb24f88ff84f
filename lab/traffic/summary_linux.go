package traffic

import "time"

// Record is what one connection did. Run delivers it as the connection
// finishes; its JSON form is one line of results.jsonl.
type Record struct {
	// Seq numbers the connection, 0 to Connections-1, in claim order.
	Seq int `json:"seq"`
	// Start is when the dial began.
	Start time.Time `json:"start"`
	// Connect is the time the dial took (until the SYN-ACK arrived).
	Connect time.Duration `json:"connect_ns"`
	// Total is the time from the dial to the close.
	Total time.Duration `json:"total_ns"`
	// Pod is the first body line of the first HTTP response (HTTP modes).
	Pod string `json:"pod,omitempty"`
	// Requests is the number of HTTP requests completed on this connection.
	Requests int `json:"requests,omitempty"`
	// Err describes the failure, empty on success.
	Err string `json:"err,omitempty"`
}

// maxKeptErrors is how many error messages a Summary keeps.
const maxKeptErrors = 5

// Summary totals a run.
type Summary struct {
	// Connections is the number of connections that finished, failed ones
	// included; connections cut short by cancellation are not counted.
	Connections int `json:"connections"`
	// Errors is the number of connections that failed.
	Errors int `json:"errors"`
	// Requests is the number of HTTP requests completed.
	Requests int `json:"requests"`
	// Elapsed is the wall time of the run.
	Elapsed time.Duration `json:"elapsed_ns"`
	// PodCounts is the number of successful connections per pod name
	// (HTTP modes only).
	PodCounts map[string]int `json:"pod_counts,omitempty"`
	// PodRequests is the number of completed requests per pod name.
	PodRequests map[string]int `json:"pod_requests,omitempty"`
	// ConnPerSec is successful connections per second of Elapsed.
	ConnPerSec float64 `json:"conn_per_sec"`
	// FirstErrors keeps the first few error messages.
	FirstErrors []string `json:"first_errors,omitempty"`
}

// add counts one finished connection.
func (s *Summary) add(r Record) {
	s.Connections++
	s.Requests += r.Requests
	if r.Pod != "" {
		if s.PodCounts == nil {
			s.PodCounts, s.PodRequests = map[string]int{}, map[string]int{}
		}
		s.PodRequests[r.Pod] += r.Requests
		if r.Err == "" {
			s.PodCounts[r.Pod]++
		}
	}
	if r.Err != "" {
		s.Errors++
		if len(s.FirstErrors) < maxKeptErrors {
			s.FirstErrors = append(s.FirstErrors, r.Err)
		}
	}
}

// finish sets the run's duration and rate.
func (s *Summary) finish(elapsed time.Duration) {
	s.Elapsed = elapsed
	if secs := elapsed.Seconds(); secs > 0 {
		s.ConnPerSec = float64(s.Connections-s.Errors) / secs
	}
}
