package ab

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
)

// Side names.
const (
	Base = "base"
	New  = "new"
)

// PlanFile is the A/B run directory's record of how it was run.
const PlanFile = "ab.json"

// Side is how one side is run: the svclab binary and its arguments after
// "run SCENARIO", and the environment it adds (PATH for tool paths).
type Side struct {
	Binary string   `json:"binary"`
	Args   []string `json:"args,omitempty"`
	Env    []string `json:"env,omitempty"`
}

// Plan is an A/B run: the scenario, the sides, and the order the
// repetitions ran in (Order[i] is repetition i+1's sides, first to last).
type Plan struct {
	Scenario    string     `json:"scenario"`
	Repetitions int        `json:"repetitions"`
	Seed        uint64     `json:"seed"`
	Base        Side       `json:"base"`
	New         Side       `json:"new"`
	Order       [][]string `json:"order"`
}

// Order returns, for each of reps repetitions, the order its two sides run
// in: base first or new first, by a fair coin seeded with seed, so that
// neither side systematically runs first (a warm cache, a machine slowing
// down over the job) and the order is reproducible from the seed.
func Order(reps int, seed uint64) [][]string {
	rng := rand.New(rand.NewPCG(seed, 0xab))
	out := make([][]string, reps)
	for i := range out {
		if rng.IntN(2) == 0 {
			out[i] = []string{Base, New}
		} else {
			out[i] = []string{New, Base}
		}
	}
	return out
}

// readPlan reads an A/B run's plan file.
func readPlan(path string, p *Plan) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read the A/B plan: %w (is this an svclab ab directory?)", err)
	}
	if err := json.Unmarshal(data, p); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
