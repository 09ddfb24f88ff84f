package main

import (
	"context"

	"github.com/svclab/svclab/lab/host"
	"github.com/svclab/svclab/sim/analyze"
	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
)

func init() {
	liveRules = func(mode dataplane.Mode, fam model.Family, backend string) (*analyze.Dump, error) {
		if backend != "" && backend != "legacy" && backend != "nft" {
			return nil, usagef("--iptables-backend %q: want legacy or nft", backend)
		}
		return host.NodeRules(context.Background(), mode, fam, backend)
	}
}
