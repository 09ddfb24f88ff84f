package apicheck

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The name rules of the Kubernetes API, each returning "" for a valid name
// or what is wrong, the input quoted as an Excerpt.

// NamespaceName checks a namespace: a DNS-1123 label.
func NamespaceName(s string) string { return nameError(s, validation.IsDNS1123Label(s)) }

// ServiceName checks a Service's name: a DNS-1035 label.
func ServiceName(s string) string { return nameError(s, validation.IsDNS1035Label(s)) }

// ObjectName checks the name of an EndpointSlice or a Node (and a node
// name anywhere): a DNS-1123 subdomain.
func ObjectName(s string) string { return nameError(s, validation.IsDNS1123Subdomain(s)) }

// PortName checks a port's name (and a named targetPort): an IANA service
// name.
func PortName(s string) string { return nameError(s, validation.IsValidPortName(s)) }

// LabelValue checks a label value or a topology name (zone, hint): at most
// 63 characters of alphanumerics, '-', '_' and '.'.
func LabelValue(s string) string { return nameError(s, validation.IsValidLabelValue(s)) }

// nameError joins apimachinery's messages without their regular
// expressions and examples.
func nameError(s string, errs []string) string {
	if len(errs) == 0 {
		return ""
	}
	if s == "" {
		return "must not be empty"
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		e, _, _ = strings.Cut(e, " (e.g.")
		e, _, _ = strings.Cut(e, ", regex used")
		msgs[i] = e
	}
	return Excerpt(s) + ": " + strings.Join(msgs, "; ")
}
