package model

import "sort"

// Insertion is one service to insert among fillers: Before fillers precede
// it (clamped to the filler count).
type Insertion struct {
	Before  int
	Service Service
}

// Insert returns fillers with each insertion placed after Before fillers;
// insertions at the same point keep their order. A sweep uses it to put one
// target service first, one in the middle and one last in KUBE-SERVICES, so
// one ruleset serves every position.
func Insert(fillers List, insertions []Insertion) List {
	ins := append([]Insertion(nil), insertions...)
	for i := range ins {
		ins[i].Before = max(0, min(ins[i].Before, fillers.Len()))
	}
	sort.SliceStable(ins, func(i, j int) bool { return ins[i].Before < ins[j].Before })
	return &inserted{fillers: fillers, ins: ins}
}

type inserted struct {
	fillers List
	ins     []Insertion // sorted by Before
}

func (l *inserted) Len() int { return l.fillers.Len() + len(l.ins) }

// At walks the few insertions to map i to a filler or an inserted service.
func (l *inserted) At(i int) *Service {
	for k := range l.ins {
		pos := l.ins[k].Before + k // its index in the combined list
		switch {
		case i == pos:
			return &l.ins[k].Service
		case i < pos:
			return l.fillers.At(i - k)
		}
	}
	return l.fillers.At(i - len(l.ins))
}

// TotalEndpoints sums both parts.
func (l *inserted) TotalEndpoints() int {
	n := TotalEndpoints(l.fillers)
	for _, in := range l.ins {
		n += in.Service.ProxiedEndpoints()
	}
	return n
}

// IndexOf returns the index of the first service called name in l, or -1.
// It walks the list, building services as it goes: use it on short lists.
func IndexOf(l List, name string) int {
	for i := 0; i < l.Len(); i++ {
		if l.At(i).Name == name {
			return i
		}
	}
	return -1
}

// Replace returns l with service i replaced by svc (e.g. one endpoint
// added, for an incremental sync).
func Replace(l List, i int, svc Service) List { return &replaced{List: l, i: i, svc: svc} }

type replaced struct {
	List
	i   int
	svc Service
}

func (r *replaced) At(i int) *Service {
	if i == r.i {
		return &r.svc
	}
	return r.List.At(i)
}

// TotalEndpoints adjusts the underlying total for the replaced service.
func (r *replaced) TotalEndpoints() int {
	old := r.List.At(r.i)
	return TotalEndpoints(r.List) - old.ProxiedEndpoints() + r.svc.ProxiedEndpoints()
}
