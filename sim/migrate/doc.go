// Package migrate answers "what changes for every Service when this node's
// kube-proxy switches mode, version or flags": for every Service, port,
// family and traffic path (Paths) it routes the connection through each
// side's rules with sim/route, compares the outcomes (the endpoints and
// their probabilities, the source address they see, accepted, dropped or
// rejected, ClientIP affinity), and groups the differences into classes of
// one cause each (Classify), with the rules that made each side's outcome.
//
// The rules come from a RulesSource: kube-proxy's own code in the caller
// (lab/kubeproxy.RenderFirst, loaded with SyncRules) or svclab's native
// renderers (NativeRules). This package renders nothing itself beyond
// that and execs nothing; the causes it names are matched on the traced
// rules (causes.go) and cited in docs/migration.md.
package migrate
