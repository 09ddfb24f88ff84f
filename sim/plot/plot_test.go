package plot

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/svclab/svclab/sim/golden"
	"github.com/svclab/svclab/sim/metric"

	"github.com/svclab/svclab/sim/results"
	gplot "gonum.org/v1/plot"
)

// plotCases builds every kind of plot from the synthetic data.
func plotCases() []struct {
	name string
	make func() (*gplot.Plot, error)
} {
	s, recs := syntheticSweep()
	return []struct {
		name string
		make func() (*gplot.Plot, error)
	}{
		{"latency-p50-last", func() (*gplot.Plot, error) { return LatencyVsServices(s, recs, "", "last") }},
		{"latency-p99-all", func() (*gplot.Plot, error) { return LatencyVsServices(s, nil, "p99_us", "") }},
		{"cpu-last", func() (*gplot.Plot, error) { return CPUVsServices(s, recs, "last") }},
		{"sync", func() (*gplot.Plot, error) { return SyncVsServices(s, recs) }},
		{"rules", func() (*gplot.Plot, error) { return RulesVsServices(s, nil) }},
		{"fairness-2", func() (*gplot.Plot, error) { return FairnessBars(fairnessRun(2, false)) }},
		{"fairness-weighted-12", func() (*gplot.Plot, error) { return FairnessBars(fairnessRun(12, true)) }},
	}
}

func svgOf(t *testing.T, p *gplot.Plot) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, p, "svg"); err != nil {
		t.Fatalf("encode svg: %v", err)
	}
	return buf.Bytes()
}

// TestGoldenSVG proves each plot's SVG is byte-identical across builds of
// the same input and matches the reviewed golden file.
func TestGoldenSVG(t *testing.T) {
	for _, tc := range plotCases() {
		t.Run(tc.name, func(t *testing.T) {
			first, err := tc.make()
			if err != nil {
				t.Fatalf("make plot: %v", err)
			}
			second, err := tc.make()
			if err != nil {
				t.Fatalf("make plot again: %v", err)
			}
			got := svgOf(t, first)
			if again := svgOf(t, second); !bytes.Equal(got, again) {
				t.Fatal("two plots of the same input give different SVG")
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".svg"), got)
		})
	}
}

// TestSave proves Save writes a decodable PNG of the documented size and
// an SVG of the documented size, and returns their paths.
func TestSave(t *testing.T) {
	p, err := FairnessBars(fairnessRun(3, false))
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "plots", "fairness")
	paths, err := Save(p, base)
	if err != nil {
		t.Fatalf("save: %v", err)
	}
	if len(paths) != 2 || paths[0] != base+".png" || paths[1] != base+".svg" {
		t.Fatalf("paths = %v, want [%s.png %s.svg]", paths, base, base)
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode png: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1152 || b.Dy() != 720 {
		t.Errorf("png is %dx%d, want 1152x720", b.Dx(), b.Dy())
	}
	svg, err := os.ReadFile(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte(`width="576pt" height="360pt"`)) {
		t.Errorf("svg header does not say 576x360pt: %.200s", svg)
	}
}

// TestLegendAndTitleText proves the legend names fitted slopes and the
// fairness title carries dataplane, service and p-value.
func TestLegendAndTitleText(t *testing.T) {
	s, recs := syntheticSweep()
	tests := []struct {
		name string
		make func() (*gplot.Plot, error)
		want []string
	}{
		{"latency", func() (*gplot.Plot, error) { return LatencyVsServices(s, recs, "", "last") },
			[]string{"iptables-nft: 21.3 ns/service [19.8, 22.9]", "nftables: 0.01 ns/service [-0.20, 0.22]", "least-squares fit", "one repetition"}},
		{"all positions", func() (*gplot.Plot, error) { return LatencyVsServices(s, recs, "p50_us", "") },
			[]string{"iptables-nft last: 21.3 ns/service", "iptables-nft first<", "nftables first (overlaps iptables-nft first)<"}},
		{"sync", func() (*gplot.Plot, error) { return SyncVsServices(s, recs) },
			[]string{"iptables-nft full: 20.0 µs/service [19.0, 21.0]", "nftables incremental"}},
		{"fairness", func() (*gplot.Plot, error) { return FairnessBars(fairnessRun(2, false)) },
			[]string{"iptables-legacy, demo/web:http", "chi-square p = 0.432", "expected share"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			svg := string(svgOf(t, p))
			for _, w := range tc.want {
				if !strings.Contains(svg, w) {
					t.Errorf("svg lacks %q", w)
				}
			}
		})
	}
}

// TestSyncUsesLogScaleForWideRanges proves the y axis turns logarithmic
// when sync times span more than a factor of 100, and stays linear else.
func TestSyncUsesLogScaleForWideRanges(t *testing.T) {
	s, _ := syntheticSweep()
	p, err := SyncVsServices(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Y.Scale.(gplot.LogScale); !ok {
		t.Errorf("sync from 0.002 s to 0.41 s: y scale is %T, want log", p.Y.Scale)
	}
	p, err = RulesVsServices(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Y.Scale.(gplot.LogScale); ok {
		t.Error("rules plot has a log scale, want linear")
	}
}

// TestNoData proves plots of nothing fail with ErrNoData and unknown
// metrics are refused by name.
func TestNoData(t *testing.T) {
	empty := &results.Summary{Kind: "sweep"}
	s, _ := syntheticSweep()
	tests := []struct {
		name string
		err  func() error
		want string
	}{
		{"empty latency", func() error { _, err := LatencyVsServices(empty, nil, "", "last"); return err }, ErrNoData.Error()},
		{"unknown position", func() error { _, err := LatencyVsServices(s, nil, "", "middle"); return err }, ErrNoData.Error()},
		{"nil summary", func() error { _, err := CPUVsServices(nil, nil, ""); return err }, ErrNoData.Error()},
		{"empty sync", func() error { _, err := SyncVsServices(empty, nil); return err }, ErrNoData.Error()},
		{"no endpoints", func() error { _, err := FairnessBars(results.FairnessRun{}); return err }, ErrNoData.Error()},
		{"unknown metric", func() error { _, err := LatencyVsServices(s, nil, "p42_us", ""); return err }, `unknown sweep metric "p42_us"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if tc.want == ErrNoData.Error() && !errors.Is(err, ErrNoData) {
				t.Errorf("err %v is not ErrNoData", err)
			}
		})
	}
}

// TestCollect proves medians, repetitions, ordering and the skipping of
// unmeasured (zero) values.
func TestCollect(t *testing.T) {
	s, recs := syntheticSweep()
	s.Points[0].P50us = 0 // nftables last at 1 service: not measured
	m, _ := sweepMetric(metric.P50)
	got := collect(s, recs, m, "last", false)
	if len(got) != 2 || got[0].dataplane != "iptables-nft" || got[1].dataplane != "nftables" {
		t.Fatalf("series = %+v, want iptables-nft then nftables", got)
	}
	if n := len(got[1].medians); n != 4 {
		t.Errorf("nftables has %d medians, want 4 (the zero is skipped)", n)
	}
	if n := len(got[0].reps); n != 15 {
		t.Errorf("iptables-nft has %d repetitions, want 15", n)
	}
	if got[0].fit == nil || got[0].fit.SlopeNsPerService != 21.3 {
		t.Errorf("iptables-nft fit = %+v, want the summary's", got[0].fit)
	}
	pooled := collect(s, recs, m, "", true)
	if len(pooled) != 2 || pooled[0].position != "" || len(pooled[0].reps) != 30 {
		t.Errorf("pooled = %d series, first has %d reps; want 2 series, 30 reps", len(pooled), len(pooled[0].reps))
	}
}
