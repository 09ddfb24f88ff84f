package apply

import (
	"fmt"

	goipt "github.com/coreos/go-iptables/iptables"

	"github.com/svclab/svclab/lab/netns"
	simipt "github.com/svclab/svclab/sim/iptables"
	"github.com/svclab/svclab/sim/render/iptables"
)

// EnsureJumps installs the jump rules from the built-in chains the way
// kube-proxy's EnsureRule(Prepend) does: `iptables -C` to check, `-I` to
// insert at the top if missing, one rule at a time, with go-iptables run on a
// thread inside the node namespace. Rules already present are left alone.
func (p *IPTables) EnsureJumps(jumps []iptables.Jump) error {
	return netns.Do(p.Netns, func() error {
		ipt, err := goipt.New(goipt.Path("/usr/sbin/" + p.tool("")))
		if err != nil {
			return err
		}
		for _, j := range jumps {
			args, err := simipt.SplitWords(j.Rule)
			if err != nil {
				return fmt.Errorf("jump rule %q: %w", j.Rule, err)
			}
			ok, err := ipt.Exists(j.Table, j.Chain, args...)
			if err != nil {
				return fmt.Errorf("check %s/%s %s in netns %s: %w", j.Table, j.Chain, j.Rule, p.Netns, err)
			}
			if ok {
				continue
			}
			if err := ipt.Insert(j.Table, j.Chain, 1, args...); err != nil {
				return fmt.Errorf("insert %s/%s %s in netns %s: %w", j.Table, j.Chain, j.Rule, p.Netns, err)
			}
		}
		return nil
	})
}
