package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Position says where the target (explicit) services sit among the filler
// (synthetic) services in rendering order, i.e. in KUBE-SERVICES.
//
// kube-proxy's own order is random (it iterates a Go map); svclab renders a
// deterministic order instead: filler services in generator order, with the
// whole block of target services inserted at the chosen position.
type Position struct {
	Kind  PositionKind
	Index int // for PositionIndex: how many filler services come first
}

// PositionKind names a placement.
type PositionKind string

// Placements of the target services.
const (
	PositionFirst  PositionKind = "first"
	PositionMiddle PositionKind = "middle"
	PositionLast   PositionKind = "last"
	PositionIndex  PositionKind = "index"
)

// ParsePosition reads "first", "middle", "last" or a non-negative index.
func ParsePosition(s string) (Position, error) {
	switch k := PositionKind(strings.ToLower(strings.TrimSpace(s))); k {
	case PositionFirst, PositionMiddle, PositionLast:
		return Position{Kind: k}, nil
	case "":
		return Position{Kind: PositionFirst}, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return Position{}, fmt.Errorf("position %q: want first, middle, last or a service index ≥ 0", s)
	}
	return Position{Kind: PositionIndex, Index: n}, nil
}

// String is the inverse of ParsePosition.
func (p Position) String() string {
	if p.Kind == PositionIndex {
		return strconv.Itoa(p.Index)
	}
	if p.Kind == "" {
		return string(PositionFirst)
	}
	return string(p.Kind)
}

// fillersBefore returns how many fillers precede the targets.
func (p Position) fillersBefore(fillers int) int {
	switch p.Kind {
	case PositionMiddle:
		return fillers / 2
	case PositionLast:
		return fillers
	case PositionIndex:
		return min(p.Index, fillers)
	}
	return 0
}

// Place returns targets inserted as one block among fillers at pos.
func Place(targets, fillers List, pos Position) List {
	return &placed{targets: targets, fillers: fillers, at: pos.fillersBefore(fillers.Len())}
}

type placed struct {
	targets, fillers List
	at               int
}

func (p *placed) Len() int { return p.targets.Len() + p.fillers.Len() }

func (p *placed) At(i int) *Service {
	switch {
	case i < p.at:
		return p.fillers.At(i)
	case i < p.at+p.targets.Len():
		return p.targets.At(i - p.at)
	}
	return p.fillers.At(i - p.targets.Len())
}

// IndexOfTargets returns the rendering index of the first target service.
func IndexOfTargets(pos Position, fillers int) int { return pos.fillersBefore(fillers) }

// TotalEndpoints sums both parts.
func (p *placed) TotalEndpoints() int {
	return TotalEndpoints(p.targets) + TotalEndpoints(p.fillers)
}
