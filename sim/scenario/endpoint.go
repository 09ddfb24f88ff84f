package scenario

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// UnmarshalYAML accepts a bare IP ("10.0.3.2") or a mapping with ip, ready
// and node. Unknown keys in the mapping are errors.
func (e *endpoint) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		e.IP = n.Value
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: an endpoint is an IP or a mapping with ip, ready, node", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i]; k.Value {
		case "ip", "ready", "node":
		default:
			return fmt.Errorf("line %d: field %s not found in type scenario.endpoint", k.Line, k.Value)
		}
	}
	type plain endpoint
	return n.Decode((*plain)(e))
}
