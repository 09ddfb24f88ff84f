package nftables

import "slices"

// addCounter handles `add counter TABLE NAME`: a named counter object
// (kube-proxy v1.36+ adds and deletes localhost-nodeport-rejected-*). Adding
// one that exists is a no-op, as in nft.
func (p *parser) addCounter(stmt []token) error {
	t, i, err := p.lookupTable(stmt, 2)
	if err != nil {
		return err
	}
	name, err := objName(stmt, i)
	if err != nil {
		return err
	}
	if !slices.Contains(t.Counters, name) {
		t.Counters = append(t.Counters, name)
	}
	return nil
}

// deleteCounter removes a named counter; a missing one is an error unless
// destroy.
func (t *Table) deleteCounter(name string, destroy bool, line int) error {
	i := slices.Index(t.Counters, name)
	if i < 0 {
		if destroy {
			return nil
		}
		return errorf(line, "delete counter %s: no such counter", name)
	}
	t.Counters = slices.Delete(t.Counters, i, i+1)
	return nil
}
