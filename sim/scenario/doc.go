// Package scenario reads svclab scenario files: YAML that lists explicit
// services, asks for synthetic ones, or both, and says what a lab run should
// measure (a fairness run or a scaling sweep).
//
// Decoding is strict: an unknown field is an error that names the file, the
// line and the field, and lists the fields that are allowed there. Semantic
// checks (an IPv4 clusterIP, no duplicate services, ports in range, enough
// room in the service CIDR) report the same way. Every error is a
// *FieldError.
//
// Scenario files in the repository's scenarios/ directory are embedded in
// the binary; Load accepts a path or the name of an embedded scenario.
package scenario
