//go:build !kp134 && !kp135 && !kp136

package driver

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/proxy"
	kubeproxyconfig "k8s.io/kubernetes/pkg/proxy/apis/config"
	"k8s.io/kubernetes/pkg/proxy/iptables"
	"k8s.io/kubernetes/pkg/proxy/ipvs"
	"k8s.io/kubernetes/pkg/proxy/nftables"
)

// Since v1.37 the NewProxier functions take a KubeProxyConfiguration.
func config(s settings) *kubeproxyconfig.KubeProxyConfiguration {
	bit := int32(s.masqueradeBit)
	localhostNodePorts := s.localhostNodePorts
	return &kubeproxyconfig.KubeProxyConfiguration{
		IPTables:          kubeproxyconfig.KubeProxyIPTablesConfiguration{MasqueradeBit: &bit, LocalhostNodePorts: &localhostNodePorts},
		NFTables:          kubeproxyconfig.KubeProxyNFTablesConfiguration{MasqueradeBit: &bit},
		IPVS:              kubeproxyconfig.KubeProxyIPVSConfiguration{Scheduler: "rr"},
		Linux:             kubeproxyconfig.KubeProxyLinuxConfiguration{MasqueradeAll: s.masqueradeAll},
		NodePortAddresses: s.nodePortAddresses,
		SyncPeriod:        metav1.Duration{Duration: s.syncPeriod},
		MinSyncPeriod:     metav1.Duration{Duration: s.minSyncPeriod},
	}
}

func newIPTables(ctx context.Context, s settings, h host) (proxy.Provider, error) {
	p, err := iptables.NewProxier(ctx, config(s), s.family, h.ipt, h.sysctl, s.detector,
		s.nodeName, s.nodeIP, s.recorder, nil, false)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func newNFTables(ctx context.Context, s settings) (proxy.Provider, error) {
	p, err := nftables.NewProxier(ctx, config(s), s.family, s.detector,
		s.nodeName, s.nodeIP, s.recorder, nil, false)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func newIPVS(ctx context.Context, s settings, h host) (proxy.Provider, error) {
	p, err := ipvs.NewProxier(ctx, config(s), s.family, h.ipt, h.ipvs, h.ipset, h.sysctl, s.detector,
		s.nodeName, s.nodeIP, s.recorder, nil, false)
	if err != nil {
		return nil, err
	}
	return p, nil
}
