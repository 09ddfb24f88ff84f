package topo

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
)

// Topology is a built lab: the names of its namespaces and links, and the
// teardown that removes them.
type Topology struct {
	// Prefix is the run prefix every name starts with.
	Prefix string
	// NodeNetns is where kube-proxy's rules go.
	NodeNetns string
	// ClientNetns is where connections to services start; it is NodeNetns
	// when the spec asked for ClientOnNode.
	ClientNetns string
	// ClientIP is the client's source address.
	ClientIP netip.Addr
	// ClientVeth is the node-side veth of the client pod; empty with
	// ClientOnNode.
	ClientVeth string
	// SinkNetns owns SinkPrefixes; empty when there are none.
	SinkNetns string
	// SinkVeth is the node-side veth of the sink pod; empty without sink.
	SinkVeth string
	// SinkPrefixes are the filler ranges routed to the sink.
	SinkPrefixes []netip.Prefix
	// ServiceCIDRs are the ClusterIP ranges of the spec (with defaults).
	ServiceCIDRs []netip.Prefix
	// Pods are the backend pods in spec order.
	Pods []PodNetns
	// ClientIPv6 is the client's IPv6 address (zero when it has none).
	ClientIPv6 netip.Addr
	// NodeIP and NodeIPv6 are the node's own addresses (zero: none).
	NodeIP, NodeIPv6 netip.Addr
	// ExternalNetns is the external client's namespace, ExternalIPs its
	// addresses and ExternalVeth the node end of its uplink; empty
	// without an external client.
	ExternalNetns string
	ExternalIPs   []netip.Addr
	ExternalVeth  string
	// SecondNodeNetns is the second node's namespace and PeerLink the
	// node end of the node-to-node link; empty without a second node.
	SecondNodeNetns string
	PeerLink        string
	// SecondNodeIP and SecondNodeIPv6 are the second node's addresses.
	SecondNodeIP, SecondNodeIPv6 netip.Addr

	closeMu  sync.Mutex
	teardown Teardown
}

// PodNetns is one backend pod of a built topology.
type PodNetns struct {
	// Name is the pod's name from the spec ("" if it had none).
	Name string
	// Netns is the pod's namespace; its end of the veth is eth0.
	Netns string
	// IP is the pod's address.
	IP netip.Addr
	// IPv6 is the pod's IPv6 address (zero when it has none).
	IPv6 netip.Addr
	// HostVeth is the node-side end of the pod's veth (in the second
	// node's namespace for a pod on it).
	HostVeth string
	// OnSecondNode says the pod lives behind the second node.
	OnSecondNode bool
}

// Build creates the topology of spec. It checks ctx between objects: when
// ctx ends it stops at once. On any error, or when ctx ends, it removes
// whatever it had created and returns the error; the caller owns a returned
// Topology and must Close it.
func Build(ctx context.Context, spec Spec) (*Topology, error) {
	spec = spec.withDefaults()
	if err := spec.validate(); err != nil {
		return nil, fmt.Errorf("topology %s: %w", spec.Prefix, err)
	}
	t := &Topology{
		Prefix:       spec.Prefix,
		NodeNetns:    nodeNetnsName(spec.Prefix),
		ClientIP:     spec.ClientIP,
		SinkPrefixes: spec.SinkPrefixes,
		ServiceCIDRs: spec.ServiceCIDRs,
		ClientIPv6:   spec.ClientIPv6,
		NodeIP:       spec.NodeIP,
		NodeIPv6:     spec.NodeIPv6,
	}
	if err := t.build(ctx, spec); err != nil {
		err = fmt.Errorf("build topology %s: %w", spec.Prefix, err)
		return nil, errors.Join(err, t.Close())
	}
	return t, nil
}

// build runs the steps of Build, tearing down on a panic before passing it on.
func (t *Topology) build(ctx context.Context, spec Spec) error {
	defer func() {
		if r := recover(); r != nil {
			_ = t.Close()
			panic(r)
		}
	}()
	b, err := openNode(spec, t.NodeNetns, &t.teardown)
	if err != nil {
		return err
	}
	defer b.close()
	if err := b.buildClient(t); err != nil {
		return err
	}
	if err := b.buildExternal(t); err != nil {
		return err
	}
	peer, err := b.buildSecondNode(t)
	if err != nil {
		return err
	}
	if peer != nil {
		defer peer.close()
	}
	for i, pod := range spec.Pods {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("stopped after %d of %d pods: %w", i, len(spec.Pods), err)
		}
		p, err := b.buildPodOn(peer, pod, i)
		if err != nil {
			return err
		}
		t.Pods = append(t.Pods, p)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(spec.SinkPrefixes) > 0 {
		t.SinkNetns, t.SinkVeth = sinkNetnsName(spec.Prefix), sinkVethName(spec.Prefix)
		return b.buildSink()
	}
	return nil
}

// Namespaces lists every namespace of the topology, node first.
func (t *Topology) Namespaces() []string {
	names := []string{t.NodeNetns}
	if t.ClientNetns != t.NodeNetns && t.ClientNetns != "" {
		names = append(names, t.ClientNetns)
	}
	for _, n := range []string{t.ExternalNetns, t.SecondNodeNetns} {
		if n != "" {
			names = append(names, n)
		}
	}
	for _, p := range t.Pods {
		names = append(names, p.Netns)
	}
	if t.SinkNetns != "" {
		names = append(names, t.SinkNetns)
	}
	return names
}

// Close removes everything Build created, newest first, and returns every
// error it met. It is idempotent, safe on a nil Topology, safe to call from
// several goroutines (later callers wait for the first), and does not panic,
// so it belongs in deferred and recover paths.
func (t *Topology) Close() error {
	if t == nil {
		return nil
	}
	t.closeMu.Lock()
	defer t.closeMu.Unlock()
	return t.teardown.Run()
}
