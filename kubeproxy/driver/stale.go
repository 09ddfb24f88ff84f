package driver

import (
	"fmt"
	"time"

	"github.com/svclab/svclab/sim/kube"
)

// holdStaleChains keeps kube-proxy's nftables proxier from deleting the
// chains earlier syncs flushed. kube-proxy deletes a stale chain, in a
// transaction of its own before the sync, once it has been stale for a
// second of wall time (staleChains in pkg/proxy/nftables/proxier.go). A
// run of Start and Step is a sequence of syncs, not a timeline: whether a
// deletion happened would otherwise depend on how fast this machine ran
// the previous sync (a starved test process took over a second once), and
// the same steps would write different transactions. Dating every stale
// chain one SyncPeriod ahead keeps them flushed-not-deleted, as the native
// renderer's Syncer does until DeleteStale. The timed session (Loop) does
// not call this: there the deletion is part of what it measures.
func (d *Driver) holdStaleChains() error {
	if d.mode != kube.ModeNFTables {
		return nil
	}
	v, err := getField(d.proxier, "staleChains")
	if err != nil {
		return err
	}
	stale, ok := v.(map[string]time.Time)
	if !ok {
		return fmt.Errorf("field staleChains of %T is a %T, not a map[string]time.Time", d.proxier, v)
	}
	later := time.Now().Add(SyncPeriod)
	for chain := range stale {
		stale[chain] = later
	}
	return nil
}
