// Package model is svclab's picture of what kube-proxy sees: Services with
// their ports and endpoints, and the cluster settings that shape the rules
// (cluster CIDR for the local-traffic detector, masquerade bit).
//
// Services are reached through the List interface rather than a slice, so a
// million synthetic services can be rendered without holding them all in
// memory: the Generator builds service i on demand from its index and seed,
// and the same seed always yields byte-identical services.
package model
