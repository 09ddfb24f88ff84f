package lease

import (
	"os"
	"path/filepath"
	"strings"
)

// StateDirs lists the directories in Dir that belong to the run prefix:
// named PREFIX-… (e.g. the kube-proxy driver's iptables symlinks,
// svl-3f9a-node-iptables-legacy-123). A run makes them under its lease,
// so its name covers them as it covers its namespaces; cleanup removes
// them with the run.
func StateDirs(prefix string) []string {
	entries, err := os.ReadDir(Dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix+"-") {
			out = append(out, filepath.Join(Dir, e.Name()))
		}
	}
	return out
}
