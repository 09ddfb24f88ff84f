// Package scenario reads svclab scenario files: YAML that lists explicit
// services, asks for synthetic ones, or both, and says what a lab run should
// measure (a fairness run or a scaling sweep).
//
// The YAML shape is private to this package; callers read the typed,
// defaulted and validated *Scenario, and change a run's settings only
// through its With… methods, which validate again.
//
// Decoding is strict: an unknown field is an error that names the file, the
// line and the field, and lists the fields that are allowed there. Every
// semantic check runs at load time, before anything is built, and reports
// the same way, as "file:line: field: message (hint)": names as the
// Kubernetes API validates them (a namespace is a DNS-1123 label, a service
// name a DNS-1035 label, a port name an IANA service name), addresses
// (unicast IPv4, clusterIPs inside the service CIDR, endpoints unique and
// distinct from clusterIPs and the lab's client pod), every count within
// its limits (a field written as 0 is checked as 0, not replaced by the
// default), and lab sizes this machine is known to hold. Files over
// MaxFileSize are refused before parsing, and a file holds one document.
// Every error is a *FieldError.
//
// The field reference (`svclab help scenario`, Reference) is printed from
// the same table the defaults and integer limits are applied from.
//
// Scenario files in the repository's scenarios/ directory are embedded in
// the binary; Load accepts a path or the name of an embedded scenario.
package scenario
