package pktgen

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestSpecValidate checks the defaults and every rejection of validate.
func TestSpecValidate(t *testing.T) {
	target := []netip.AddrPort{netip.MustParseAddrPort("10.96.0.10:80")}
	good := Spec{ClientNetns: "svl-x-cli", Targets: target, Packets: 10}
	tests := []struct {
		name    string
		change  func(*Spec)
		wantErr string
	}{
		{"good", func(*Spec) {}, ""},
		{"duration only", func(s *Spec) { s.Packets, s.Duration = 0, time.Second }, ""},
		{"no netns", func(s *Spec) { s.ClientNetns = "" }, "no client netns"},
		{"no targets", func(s *Spec) { s.Targets = nil }, "no targets"},
		{"no bound", func(s *Spec) { s.Packets = 0 }, "neither Packets nor Duration"},
		{"negative rate", func(s *Spec) { s.Rate = -1 }, "negative bound"},
		{"IPv6 target", func(s *Spec) { s.Targets = []netip.AddrPort{netip.MustParseAddrPort("[fd00::1]:80")} }, "want IPv4"},
		{"port zero", func(s *Spec) { s.Targets = []netip.AddrPort{netip.MustParseAddrPort("10.96.0.1:0")} }, "nonzero port"},
		{"IPv6 source", func(s *Spec) { s.SrcIP = netip.MustParseAddr("fd00::2") }, "want IPv4"},
		{"inverted ports", func(s *Spec) { s.SrcPorts = PortRange{First: 2000, Last: 1000} }, "first <= last"},
		{"flush too rare", func(s *Spec) { s.SrcPorts, s.FlushEvery = PortRange{First: 1000, Last: 1099}, 100 }, "below the 100 source ports"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.change(&s)
			err := s.withDefaults().validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("validate: %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestSpecDefaults checks the filled-in interface, ports and flush period.
func TestSpecDefaults(t *testing.T) {
	tests := []struct {
		ports          PortRange
		wantFlushEvery int
	}{
		{PortRange{}, 60000},
		{PortRange{First: 2000, Last: 2499}, 468},
	}
	for _, tt := range tests {
		s := Spec{SrcPorts: tt.ports}.withDefaults()
		if s.Iface != "eth0" || s.FlushEvery != tt.wantFlushEvery || s.SrcPorts == (PortRange{}) {
			t.Errorf("defaults for ports %v: %+v, want eth0, flush every %d", tt.ports, s, tt.wantFlushEvery)
		}
	}
}
