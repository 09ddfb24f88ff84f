// Package kpname computes chain, set and map names exactly as kube-proxy
// does, so rendered rules carry the names a real cluster would have.
package kpname

import (
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// hash16 is base32(sha256(s))[:16], kube-proxy's iptables chain suffix.
func hash16(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base32.StdEncoding.EncodeToString(sum[:])[:16]
}

// PortProtoHash is kube-proxy's portProtoHash(servicePortName, protocol):
// the two strings joined with no separator, protocol in lower case.
func PortProtoHash(servicePortName, protocol string) string {
	return hash16(servicePortName + strings.ToLower(protocol))
}

// ServiceChain is the KUBE-SVC-* chain of a service port.
func ServiceChain(servicePortName, protocol string) string {
	return "KUBE-SVC-" + PortProtoHash(servicePortName, protocol)
}

// LocalServiceChain is the KUBE-SVL-* chain (internal/external traffic
// policy Local).
func LocalServiceChain(servicePortName, protocol string) string {
	return "KUBE-SVL-" + PortProtoHash(servicePortName, protocol)
}

// ExternalChain is the KUBE-EXT-* chain of a service port.
func ExternalChain(servicePortName, protocol string) string {
	return "KUBE-EXT-" + PortProtoHash(servicePortName, protocol)
}

// FirewallChain is the KUBE-FW-* chain of a service port.
func FirewallChain(servicePortName, protocol string) string {
	return "KUBE-FW-" + PortProtoHash(servicePortName, protocol)
}

// EndpointChain is the KUBE-SEP-* chain of one endpoint ("IP:port") of a
// service port.
func EndpointChain(servicePortName, protocol, endpoint string) string {
	return "KUBE-SEP-" + hash16(servicePortName+strings.ToLower(protocol)+endpoint)
}

// nftNameBaseLengthMax is knftables.NameLengthMax (256) - 16.
const nftNameBaseLengthMax = 240

// hashAndTruncate is kube-proxy nftables' chain-name scheme:
// base32(sha256(name))[:8] + "-" + name, cut to 240 characters with "...".
func hashAndTruncate(name string) string {
	sum := sha256.Sum256([]byte(name))
	full := base32.StdEncoding.EncodeToString(sum[:])[:8] + "-" + name
	if len(full) > nftNameBaseLengthMax {
		full = full[:nftNameBaseLengthMax-3] + "..."
	}
	return full
}

// NFTServiceName is the nftables per-service-port name "ns/svc/proto/port"
// (hashed and truncated, without a prefix).
func NFTServiceName(namespace, name, protocol, portName string) string {
	return hashAndTruncate(namespace + "/" + name + "/" + strings.ToLower(protocol) + "/" + portName)
}

// NFTServiceChain is the "service-..." chain of a service port.
func NFTServiceChain(namespace, name, protocol, portName string) string {
	return "service-" + NFTServiceName(namespace, name, protocol, portName)
}

// NFTExternalChain is the "external-..." chain of a service port.
func NFTExternalChain(namespace, name, protocol, portName string) string {
	return "external-" + NFTServiceName(namespace, name, protocol, portName)
}

// nftEndpointName is "ns/svc/proto/port__IP/port" (IPv6 colons become dots).
func nftEndpointName(namespace, name, protocol, portName, ip string, port string) string {
	ip = strings.ReplaceAll(ip, ":", ".")
	return hashAndTruncate(namespace + "/" + name + "/" + strings.ToLower(protocol) + "/" + portName + "__" + ip + "/" + port)
}

// NFTEndpointChain is the "endpoint-..." chain of one endpoint.
func NFTEndpointChain(namespace, name, protocol, portName, ip, port string) string {
	return "endpoint-" + nftEndpointName(namespace, name, protocol, portName, ip, port)
}

// NFTAffinitySet is the "affinity-..." set of one endpoint (ClientIP
// session affinity).
func NFTAffinitySet(namespace, name, protocol, portName, ip, port string) string {
	return "affinity-" + nftEndpointName(namespace, name, protocol, portName, ip, port)
}
