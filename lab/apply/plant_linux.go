package apply

import (
	"fmt"

	"github.com/svclab/svclab/lab/netns"
	"github.com/svclab/svclab/sim/render"
)

// Plant loads render.PlantScript(rules) into the node namespace nodeNetns:
// a table of its own whose prerouting chain holds rules dummy rules that
// never match, so every packet the node forwards pays a known, fixed cost
// (a planted slowdown, for measuring a gate's power). It never touches the
// host: the table lives and dies with the node namespace. rules ≤ 0 plants
// nothing.
func Plant(nodeNetns string, rules int) error {
	if rules <= 0 {
		return nil
	}
	script := render.PlantScript(rules)
	if _, err := netns.Output(nodeNetns, script, "nft", "-f", "-"); err != nil {
		return fmt.Errorf("plant %d dummy rules in netns %s: %w", rules, nodeNetns, err)
	}
	return nil
}
