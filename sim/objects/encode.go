package objects

import (
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Encode writes objects (typed API objects with their TypeMeta set) as one
// YAML List, the shape of kubectl get -o yaml.
func Encode(w io.Writer, items []any) error {
	list := struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Items      []any  `json:"items"`
	}{"v1", "List", items}
	b, err := yaml.Marshal(list)
	if err != nil {
		return fmt.Errorf("encode the objects: %w", err)
	}
	_, err = w.Write(b)
	return err
}
