package lease

import "sync"

// Shared is one lease that several labs of a process hold together (e.g.
// verify-trace's scratch labs, all named PREFIX-…): it is taken when the
// first lab starts and released when the last one ends, or abandoned to
// `svclab cleanup` if one of them could not remove its objects.
type Shared struct {
	// Prefix and Kind are the lease's.
	Prefix, Kind string

	mu       sync.Mutex
	l        *Lease
	users    int
	leftover bool
}

// Hold takes the lease, or joins it if another lab of this process holds
// it, before the caller creates anything.
func (s *Shared) Hold() (*Lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == 0 {
		l, err := Acquire(s.Prefix, s.Kind)
		if err != nil {
			return nil, err
		}
		s.l, s.leftover = l, false
	}
	s.users++
	return s.l, nil
}

// Drop ends one lab's hold; removed says whether everything it made is
// gone. The last one out releases the lease, or abandons it (the file
// stays for `svclab cleanup`) if any lab left objects behind.
func (s *Shared) Drop(removed bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leftover = s.leftover || !removed
	s.users--
	if s.users > 0 {
		return nil
	}
	l := s.l
	s.l = nil
	if s.leftover {
		l.Abandon()
		return nil
	}
	return l.Release()
}
