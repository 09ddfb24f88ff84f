// Package auditcheck holds the acceptance tests of svclab audit (sim/audit)
// on real nodes: scratch network namespaces programmed by kube-proxy itself
// (the lab's kube-proxy engine, lab/kubeproxy), read back with the kernel's
// tools, audited untouched for every mode the kernel runs and every
// supported version, then tampered with (a rule deleted, a stale chain left,
// a map element missing, another version's layout) and audited again. IPVS
// is audited on kube-proxy's render-mode dumps (this host has no IPVS).
package auditcheck
