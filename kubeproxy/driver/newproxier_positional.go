//go:build kp134 || kp135 || kp136

package driver

import (
	"context"

	"k8s.io/kubernetes/pkg/proxy"
	"k8s.io/kubernetes/pkg/proxy/iptables"
	"k8s.io/kubernetes/pkg/proxy/ipvs"
	"k8s.io/kubernetes/pkg/proxy/nftables"
)

// Up to v1.36 the NewProxier functions take positional arguments (the
// version glue_13X.go files say which release this is).

func newIPTables(ctx context.Context, s settings, h host) (proxy.Provider, error) {
	p, err := iptables.NewProxier(ctx, s.family, h.ipt, h.sysctl, s.syncPeriod, s.minSyncPeriod,
		s.masqueradeAll, s.localhostNodePorts, s.masqueradeBit, s.detector, s.nodeName, s.nodeIP, s.recorder, nil,
		s.nodePortAddresses, false)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func newNFTables(ctx context.Context, s settings) (proxy.Provider, error) {
	p, err := nftables.NewProxier(ctx, s.family, s.syncPeriod, s.minSyncPeriod,
		s.masqueradeAll, s.masqueradeBit, s.detector, s.nodeName, s.nodeIP, s.recorder, nil,
		s.nodePortAddresses, false)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func newIPVS(ctx context.Context, s settings, h host) (proxy.Provider, error) {
	p, err := ipvs.NewProxier(ctx, s.family, h.ipt, h.ipvs, h.ipset, h.sysctl, s.syncPeriod, s.minSyncPeriod,
		nil, false, 0, 0, 0, s.masqueradeAll, s.masqueradeBit, s.detector, s.nodeName, s.nodeIP, s.recorder, nil,
		"rr", s.nodePortAddresses, false)
	if err != nil {
		return nil, err
	}
	return p, nil
}
