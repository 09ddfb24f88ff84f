package ipvs

import (
	"bufio"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// ipsetState is a fake kernel ipset table filled by replaying `ipset
// restore` input. It checks what ipset(8) and the kernel check: known
// types and create options, adds to existing sets only, members that parse
// for the set's type, duplicates only with -exist, maxelem.
type ipsetState struct {
	sets  map[string]*fakeSet
	order []string
}

type fakeSet struct {
	typ     string
	family  string // inet or inet6 (bitmap:port has none)
	maxElem int
	members map[string]bool
}

// dims is how many match directions a set type takes (--match-set NAME dirs).
var dims = map[string]int{hashIP: 1, hashIPPort: 2, hashIPPortIP: 3, hashIPPortNet: 3, bitmapPort: 1}

func replayIPSet(payload string) (*ipsetState, error) {
	st := &ipsetState{sets: map[string]*fakeSet{}}
	sc := bufio.NewScanner(strings.NewReader(payload))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		exist := len(f) > 0 && f[len(f)-1] == "-exist"
		if exist {
			f = f[:len(f)-1]
		}
		var err error
		switch {
		case len(f) == 0:
		case f[0] == "create" && len(f) >= 3:
			err = st.create(f[1], f[2], f[3:], exist)
		case f[0] == "add" && len(f) == 3:
			err = st.add(f[1], f[2], exist)
		default:
			err = fmt.Errorf("unknown command")
		}
		if err != nil {
			return nil, fmt.Errorf("ipset restore line %d %q: %w", n, sc.Text(), err)
		}
	}
	return st, sc.Err()
}

func (st *ipsetState) create(name, typ string, opts []string, exist bool) error {
	if _, ok := dims[typ]; !ok {
		return fmt.Errorf("unknown set type %q", typ)
	}
	if len(name) > 31 {
		return fmt.Errorf("set name longer than 31 characters")
	}
	if st.sets[name] != nil && !exist {
		return fmt.Errorf("set %s already exists", name)
	}
	s := &fakeSet{typ: typ, family: "inet", maxElem: 65536, members: map[string]bool{}}
	for i := 0; i+1 < len(opts); i += 2 {
		switch k, v := opts[i], opts[i+1]; {
		case typ == bitmapPort && k == "range" && v == defaultPortRange:
		case typ != bitmapPort && k == "family" && (v == "inet" || v == "inet6"):
			s.family = v
		case typ != bitmapPort && k == "hashsize":
		case typ != bitmapPort && k == "maxelem":
			s.maxElem, _ = strconv.Atoi(v)
		default:
			return fmt.Errorf("option %s %s not valid for %s", k, v, typ)
		}
	}
	if len(opts)%2 != 0 || (typ == bitmapPort && len(opts) != 2) {
		return fmt.Errorf("malformed create options %q", opts)
	}
	st.sets[name] = s
	st.order = append(st.order, name)
	return nil
}

func (st *ipsetState) add(name, entry string, exist bool) error {
	s := st.sets[name]
	if s == nil {
		return fmt.Errorf("set %s does not exist", name)
	}
	if err := checkMember(s.typ, s.family, entry); err != nil {
		return err
	}
	if s.members[entry] {
		if exist {
			return nil
		}
		return fmt.Errorf("element already added")
	}
	if len(s.members) >= s.maxElem {
		return fmt.Errorf("hash is full, cannot add more elements")
	}
	s.members[entry] = true
	return nil
}

// checkMember parses an entry the way its set type reads it, its
// addresses of the set's family.
func checkMember(typ, family, entry string) error {
	parts := strings.Split(entry, ",")
	want := dims[typ]
	if len(parts) != want {
		return fmt.Errorf("%s member %q: want %d parts", typ, entry, want)
	}
	if typ == bitmapPort {
		_, err := boundedInt(entry, 0, 65535, "port")
		return err
	}
	if err := checkFamilyAddr(family, parts[0]); err != nil {
		return fmt.Errorf("%s member %q: %w", typ, entry, err)
	}
	if want >= 2 {
		proto, port, ok := strings.Cut(parts[1], ":")
		if !ok || (proto != "tcp" && proto != "udp" && proto != "sctp") {
			return fmt.Errorf("%s member %q: want proto:port", typ, entry)
		}
		if _, err := boundedInt(port, 0, 65535, "port"); err != nil {
			return err
		}
	}
	switch {
	case typ == hashIPPortIP:
		if err := checkFamilyAddr(family, parts[2]); err != nil {
			return fmt.Errorf("%s member %q: second address: %w", typ, entry, err)
		}
	case typ == hashIPPortNet:
		p, err := netip.ParsePrefix(parts[2])
		if err != nil || p.Bits() == 0 || checkFamilyAddr(family, p.Addr().String()) != nil {
			return fmt.Errorf("%s member %q: want a non-zero %s network", typ, entry, family)
		}
	}
	return nil
}

// checkFamilyAddr parses an address of family inet or inet6.
func checkFamilyAddr(family, s string) error {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Is4() != (family == "inet") || a.Zone() != "" {
		return fmt.Errorf("bad %s address %q", family, s)
	}
	return nil
}

// members counts set name's members.
func (st *ipsetState) members(name string) int {
	if s := st.sets[name]; s != nil {
		return len(s.members)
	}
	return -1
}
