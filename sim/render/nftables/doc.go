// Package nftables renders the `nft -f` transaction that kube-proxy's
// nftables mode (pkg/proxy/nftables) runs for a model: the "kube-proxy"
// table in family ip, its base chains, the service-ips / service-nodeports
// verdict maps, one chain per service port and per endpoint, and the
// affinity sets of ClientIP services. Lines are written in knftables' text
// form ("add chain ip kube-proxy NAME", "add element ip kube-proxy MAP { K : V }")
// and in the raw order kube-proxy's syncProxyRules adds them, except that
// services come in model order (kube-proxy walks a Go map).
//
// Output is streamed: each service is built, written and dropped, so memory
// does not grow with the number of services.
package nftables
