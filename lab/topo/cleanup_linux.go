package topo

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/svclab/svclab/lab/netns"
)

// Cleanup removes every svclab namespace under /run/netns that belongs to
// prefix, such as those a killed run left behind, and returns their names.
// An empty prefix means PrefixBase ("svl-"), i.e. every svclab namespace; a
// prefix ending in "-" matches every name it starts, and a run prefix such
// as "svl-3f9a" matches itself and names continuing with "-". Deleting a
// node namespace also deletes its veths. Cleanup refuses prefixes that do
// not start with PrefixBase, so it cannot remove anything svclab did not
// name.
func Cleanup(prefix string) ([]string, error) {
	if prefix == "" {
		prefix = PrefixBase
	}
	if !strings.HasPrefix(prefix, PrefixBase) {
		return nil, fmt.Errorf("cleanup %q: prefix must start with %q", prefix, PrefixBase)
	}
	names, err := netns.List(prefix)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, name := range names {
		if !belongsToRun(name, prefix) {
			continue
		}
		if err := deleteNetns(name); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, name)
	}
	return removed, errors.Join(errs...)
}

// deleteNetns unmounts and removes a namespace; a leftover file that is no
// longer a mount point (e.g. after a reboot) is removed as well.
func deleteNetns(name string) error {
	err := netns.Delete(name)
	if err == nil {
		return nil
	}
	if rmErr := os.Remove(netns.Path(name)); rmErr == nil || errors.Is(rmErr, os.ErrNotExist) {
		return nil
	}
	return err
}
