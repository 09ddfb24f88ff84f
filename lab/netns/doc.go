// Package netns creates, enters and deletes the named network namespaces that
// an svclab run owns.
//
// Namespaces are bind-mounted under /run/netns (the same place `ip netns`
// uses), so people can explore a running lab with `ip netns exec NAME ...`.
//
// Entering a namespace follows the CNI plugins' rule: the switch happens only
// inside a fresh goroutine whose OS thread is locked, and a thread whose switch
// back failed is never unlocked, so the Go runtime discards it instead of
// reusing a thread that sits in the wrong namespace. Prefer APIs that take a
// namespace handle (netlink.NewHandleAt, nftables.WithNetNSFd) over Do where
// they exist.
package netns
