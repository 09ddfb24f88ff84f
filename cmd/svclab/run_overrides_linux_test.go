package main

import (
	"testing"

	"github.com/svclab/svclab/sim/scenario"
)

// TestGuestOverridesMatchTheFlags: the overrides a guest makes again give
// the scenario the flags gave here (same hash), so a run in the guest
// records what the host asked for.
func TestGuestOverridesMatchTheFlags(t *testing.T) {
	for _, f := range []runFlags{
		{},
		{dataplanes: "ipvs", dataplaneSet: true},
		{connections: 300, connectionsSet: true, engine: "native"},
		{dataplanes: "ipvs,nftables", dataplaneSet: true, connections: 50, connectionsSet: true, version: "1.35"},
	} {
		sc, err := scenario.Load("split-5")
		if err != nil {
			t.Fatal(err)
		}
		here, err := applyRunOverrides(sc, f)
		if err != nil {
			t.Fatal(err)
		}
		there, err := f.overrides().Apply(sc)
		if err != nil {
			t.Fatal(err)
		}
		if here.Hash() != there.Hash() {
			t.Errorf("flags %+v: guest scenario hash %s, host %s", f, there.Hash(), here.Hash())
		}
	}
}

// TestGuestTimeoutMustBePositive: --guest-timeout is a duration above 0,
// refused as bad input before anything runs.
func TestGuestTimeoutMustBePositive(t *testing.T) {
	for _, v := range []string{"0s", "-5m", "ninety"} {
		badInput(t, "guest-timeout", "run", "split-2", "--guest-timeout", v)
	}
}
