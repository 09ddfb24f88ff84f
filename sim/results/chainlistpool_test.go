package results

import (
	"reflect"
	"testing"
)

func TestPoolChainListWalks(t *testing.T) {
	start := []ChainListStep{
		{Chains: 1000, NsPerStep: 5, Layout: ChainListFull, NodeBytes: 352, ColdNsPerStep: 6, WarmNsPerStep: 4, MinNsPerStep: 4.5, MaxNsPerStep: 5.5},
		{Chains: 90510, NsPerStep: 40, Layout: ChainListFull, NodeBytes: 352, ColdNsPerStep: 50, WarmNsPerStep: 30, MinNsPerStep: 30, MaxNsPerStep: 60},
	}
	end := []ChainListStep{
		{Chains: 1000, NsPerStep: 7, Layout: ChainListFull, NodeBytes: 352, ColdNsPerStep: 8, WarmNsPerStep: 6, MinNsPerStep: 6, MaxNsPerStep: 8},
		{Chains: 90510, NsPerStep: 120, Layout: ChainListFull, NodeBytes: 352, ColdNsPerStep: 130, WarmNsPerStep: 110, MinNsPerStep: 90, MaxNsPerStep: 200},
		{Chains: 1000, NsPerStep: 9, Layout: ChainListPartial, NodeBytes: 1808},
	}
	old := []ChainListStep{{Chains: 1000, NsPerStep: 10}} // before layouts and ranges: the full layout, no range
	for _, tt := range []struct {
		name  string
		walks [][]ChainListStep
		want  []ChainListStep
	}{
		{"none", nil, nil},
		{"one walk is kept as it is", [][]ChainListStep{nil, start}, start},
		{"two walks: means, and the range over both", [][]ChainListStep{start, end}, []ChainListStep{
			{Chains: 1000, NsPerStep: 6, Layout: ChainListFull, NodeBytes: 352, ColdNsPerStep: 7, WarmNsPerStep: 5, MinNsPerStep: 4.5, MaxNsPerStep: 8},
			{Chains: 90510, NsPerStep: 80, Layout: ChainListFull, NodeBytes: 352, ColdNsPerStep: 90, WarmNsPerStep: 70, MinNsPerStep: 30, MaxNsPerStep: 200},
			{Chains: 1000, NsPerStep: 9, Layout: ChainListPartial, NodeBytes: 1808, MinNsPerStep: 9, MaxNsPerStep: 9},
		}},
		{"a walk without layout or range pools with the full layout's", [][]ChainListStep{start[:1], old}, []ChainListStep{
			{Chains: 1000, NsPerStep: 7.5, Layout: ChainListFull, NodeBytes: 352, ColdNsPerStep: 6, WarmNsPerStep: 4, MinNsPerStep: 4.5, MaxNsPerStep: 10},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := PoolChainListWalks(tt.walks...); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("PoolChainListWalks =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestChainListWalksOf(t *testing.T) {
	walk := []ChainListStep{{Chains: 1000, NsPerStep: 5}}
	records := []Record{{Type: TypeMeta, Meta: &Meta{ChainListWalk: walk}}, {Type: TypeChainListWalk, ChainListWalk: walk}, {Type: TypeChainListWalk}}
	if got := ChainListWalksOf(records); len(got) != 1 || !reflect.DeepEqual(got[0], walk) {
		t.Errorf("ChainListWalksOf = %v, want the one record's walk", got)
	}
}

func TestChainListSwing(t *testing.T) {
	start := []ChainListStep{{Chains: 1000, NsPerStep: 5, Layout: ChainListFull}, {Chains: 90510, NsPerStep: 140, Layout: ChainListFull}, {Chains: 90510, NsPerStep: 300, Layout: ChainListPartial}}
	end := []ChainListStep{{Chains: 1000, NsPerStep: 5.5}, {Chains: 90510, NsPerStep: 70, Layout: ChainListFull}}
	for _, tt := range []struct {
		name       string
		walks      [][]ChainListStep
		wantRatio  float64
		wantChains int
	}{
		{"one walk", [][]ChainListStep{start}, 1, 0},
		{"two walks: the widest length", [][]ChainListStep{start, end}, 2, 90510},
		{"a step one walk alone timed does not count", [][]ChainListStep{start[2:], end}, 1, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ratio, chains := ChainListSwing(tt.walks...)
			if ratio != tt.wantRatio || chains != tt.wantChains {
				t.Errorf("ChainListSwing = %v at %d chains, want %v at %d", ratio, chains, tt.wantRatio, tt.wantChains)
			}
		})
	}
}
