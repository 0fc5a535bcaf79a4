package trace_test

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/shardsim/shardsim/detect"
)

func newRand() *rand.Rand { return rand.New(rand.NewPCG(1, 1)) }

// sortCounters orders counters as detect.SpaceSaving.Top does: by count, then id.
func sortCounters(c []detect.Counter) {
	slices.SortFunc(c, func(a, b detect.Counter) int {
		if x := cmp.Compare(b.Count, a.Count); x != 0 {
			return x
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
