package results

import (
	"strings"
	"testing"
)

// TestIssue26Point12RefusesImpossibleValues: values no measurement can
// produce (negative latencies, 1e308 that reports print as +Inf) and
// records given twice are refused at load, naming the file and line.
func TestIssue26Point12RefusesImpossibleValues(t *testing.T) {
	const meta = `{"schema":1,"type":"meta","meta":{"schema":1,"run":"svl-1"}}`
	point := func(rep int, p50 string) string {
		return `{"schema":1,"type":"point","point":{"dataplane":"nftables","services":10,"position":"last","repetition":` +
			string(rune('0'+rep)) + `,"p50_us":` + p50 + `,"p90_us":20,"p99_us":30,"conn_per_s":100}}`
	}
	fairness := `{"schema":1,"type":"fairness","fairness":{"dataplane":"nftables","service":"default/web:80","chi2_p":0.5,"jain":0.99,"p50_us":12,"p99_us":40,"conn_per_s":100}}`
	tests := []struct {
		name    string
		lines   []string
		wantErr string // "" = loads
	}{
		{"plain", []string{meta, point(1, "10"), point(2, "11"), fairness}, ""},
		{"negative latency", []string{meta, point(1, "10"), point(2, "-17.3")}, "run.jsonl:3: point nftables/10/last repetition 2: p50_us -17.3"},
		{"huge latency", []string{meta, point(1, "1e308")}, "run.jsonl:2: point nftables/10/last repetition 1: p50_us 1e+308"},
		{"negative rate", []string{meta, strings.Replace(point(1, "10"), `"conn_per_s":100`, `"conn_per_s":-1`, 1)}, "run.jsonl:2: point nftables/10/last repetition 1: conn_per_s -1"},
		{"jain above 1", []string{meta, strings.Replace(fairness, `"jain":0.99`, `"jain":1.5`, 1)}, "run.jsonl:2: fairness nftables default/web:80: jain 1.5"},
		{"p-value below 0", []string{meta, strings.Replace(fairness, `"chi2_p":0.5`, `"chi2_p":-0.1`, 1)}, "run.jsonl:2: fairness nftables default/web:80: chi2_p -0.1"},
		{"repetition twice", []string{meta, point(1, "10"), point(2, "11"), point(1, "12")}, "run.jsonl:4: point nftables/10/last repetition 1 again (first on line 2)"},
		{"file given four times", []string{meta, point(1, "10"), meta, point(1, "10")}, "run.jsonl:3: the same record as line 1"},
		{"a batch of Service creations", []string{meta, strings.Replace(point(1, "10"), `"conn_per_s":100`, `"conn_per_s":100,"sync_batch_s":0.2,"sync_batch":100,"sync_batch_kind":"services"`, 1)}, ""},
		{"an unknown batch kind", []string{meta, strings.Replace(point(1, "10"), `"conn_per_s":100`, `"conn_per_s":100,"sync_batch_kind":"pods"`, 1)}, `run.jsonl:2: point nftables/10/last repetition 1: sync_batch_kind "pods": unknown`},
		{"fairness twice", []string{meta, fairness, fairness}, "run.jsonl:3: the same record as line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, _, err := DecodeRecords(strings.NewReader(strings.Join(tt.lines, "\n")+"\n"), "run.jsonl")
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if len(recs) != len(tt.lines) {
					t.Fatalf("%d records, want %d", len(recs), len(tt.lines))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
