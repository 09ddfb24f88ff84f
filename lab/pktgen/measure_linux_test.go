package pktgen

import (
	"context"
	"testing"
	"time"
)

// TestMeasureFindsKnee runs a short rate search against a two-pod service
// and checks that the steps are consistent and the knee is one of them.
func TestMeasureFindsKnee(t *testing.T) {
	f := newLabFixture(t, 2)
	spec := MeasureSpec{
		Blast:          f.blastSpec(0),
		Forwarded:      f.forwarded(),
		StartRate:      10000,
		StepDuration:   100 * time.Millisecond,
		Baseline:       -1, // raw CPU: other tests may load the machine
		ConntrackNetns: f.topo.NodeNetns,
	}
	rate, err := Measure(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rate.Steps {
		t.Logf("offered %8.0f sent %6d in %6s: %8.0f flows/s, loss %5.1f%%, %.2f µs/pkt",
			s.Offered, s.Blast.Sent, s.Blast.Elapsed.Round(time.Millisecond), s.FlowsPerSec, 100*s.Loss, s.CPUMicrosPerPacket)
		if s.Forwarded > uint64(s.Blast.Sent) {
			t.Errorf("step at %.0f: %d forwarded of %d sent", s.Offered, s.Forwarded, s.Blast.Sent)
		}
	}
	t.Logf("knee %.0f flows/s at %.0f offered, %.2f µs/pkt, saturated %v, conntrack %+v peak %d %q",
		rate.FlowsPerSec, rate.Offered, rate.CPUMicrosPerPacket, rate.Saturated, rate.Conntrack, rate.ConntrackPeak, rate.ConntrackWarning)
	if len(rate.Steps) < 2 || rate.FlowsPerSec <= 0 || rate.CPUMicrosPerPacket <= 0 {
		t.Fatalf("rate %+v: want at least 2 steps and a positive knee and CPU cost", rate)
	}
	if rate.FlowsPerSec > rate.Offered*1.1 {
		t.Errorf("knee %.0f flows/s above its offered %.0f", rate.FlowsPerSec, rate.Offered)
	}
	if rate.ConntrackWarning != "" || rate.Conntrack.Max == 0 {
		t.Errorf("conntrack %+v, warning %q: want a known max and no warning", rate.Conntrack, rate.ConntrackWarning)
	}
}

// TestMeasureRejects checks the specs Measure refuses before sending.
func TestMeasureRejects(t *testing.T) {
	count := func() (uint64, error) { return 0, nil }
	tests := []struct {
		name string
		spec MeasureSpec
	}{
		{"no counter", MeasureSpec{}},
		{"start above max", MeasureSpec{Forwarded: count, StartRate: 2000, MaxRate: 1000}},
	}
	for _, tt := range tests {
		if rate, err := Measure(context.Background(), tt.spec); err == nil || len(rate.Steps) != 0 {
			t.Errorf("%s: %+v, %v; want an error and no step", tt.name, rate, err)
		}
	}
}

// TestNewStep checks the rates a step derives from its readings.
func TestNewStep(t *testing.T) {
	sec := time.Second
	tests := []struct {
		name                string
		offered             float64
		res                 Result
		forwarded           uint64
		cpu                 float64
		wantFlows, wantLoss float64
		wantMicrosPerPacket float64
	}{
		{"all forwarded", 1000, Result{Sent: 1000, Elapsed: sec}, 1000, 0.01, 1000, 0, 10},
		{"sender fell behind", 2000, Result{Sent: 1000, Elapsed: sec}, 1000, 0, 1000, 0.5, 0},
		{"node dropped some", 1000, Result{Sent: 900, Dropped: 100, Elapsed: sec / 2}, 800, 0.008, 1600, 0.2, 10},
		{"nothing sent", 1000, Result{}, 0, 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStep(tt.offered, tt.res, tt.forwarded, tt.cpu)
			if !near(s.FlowsPerSec, tt.wantFlows) || !near(s.Loss, tt.wantLoss) || !near(s.CPUMicrosPerPacket, tt.wantMicrosPerPacket) {
				t.Errorf("step %+v: want %g flows/s, loss %g, %g µs/pkt", s, tt.wantFlows, tt.wantLoss, tt.wantMicrosPerPacket)
			}
		})
	}
}

// TestCPUReadingSince checks the baseline subtraction.
func TestCPUReadingSince(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r0 := cpuReading{seconds: 10, at: t0}
	tests := []struct {
		seconds  float64
		wall     time.Duration
		baseline float64
		want     float64
	}{
		{10.5, time.Second, 0, 0.5},
		{10.5, time.Second, 0.25, 0.25},
		{10.5, 2 * time.Second, 0.5, 0},
	}
	for _, tt := range tests {
		r := cpuReading{seconds: tt.seconds, at: t0.Add(tt.wall)}
		if got := r.since(r0, tt.baseline); !near(got, tt.want) {
			t.Errorf("%g s over %s with baseline %g: got %g, want %g", tt.seconds-10, tt.wall, tt.baseline, got, tt.want)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
