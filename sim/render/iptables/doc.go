// Package iptables renders the iptables-restore payload that kube-proxy's
// iptables mode writes for a model: the filter and nat tables with
// KUBE-SERVICES, KUBE-SVC-*, KUBE-SEP-*, KUBE-EXT-*, KUBE-MARK-MASQ,
// KUBE-POSTROUTING, KUBE-NODEPORTS and KUBE-FORWARD, in kube-proxy's
// generation order, with its chain-name hashes, probability formatting,
// comment quoting and large-cluster mode.
//
// Order. kube-proxy iterates services in Go map order, so its KUBE-SERVICES
// order is random. svclab renders services in the model's order instead (see
// model.Place for putting target services first, last, in the middle or at an
// index); within a service, endpoints follow kube-proxy's string order.
//
// Streaming. The payload is written in three passes over the services (filter
// rules, nat chain declarations, nat rules), because kube-proxy declares every
// nat chain before the first nat rule. No pass keeps more than one service in
// memory, so rendering 100,000 services needs memory for one service, not
// for the output.
//
// The jump rules from the built-in chains (PREROUTING → KUBE-SERVICES and so
// on) are not part of kube-proxy's restore payload; it installs them with
// `iptables -C`/`-I`. RenderJumps writes them as a separate restore payload.
package iptables
