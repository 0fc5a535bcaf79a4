package diagnose

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
)

// TestWaitRules: a registered wait rule is applied to every wait of its name, in the
// streams' order and each stream's waits' order, and a wait no rule is registered for is
// left alone; a name registered twice panics.
func TestWaitRules(t *testing.T) {
	RegisterWaitRule("test_wait", func(v Finding, st *metrics.Stream, w metrics.Wait) {
		v.Add(Diagnosis{Kind: "test", Subject: fmt.Sprintf("%s/%d", st.Name, w.Queued)})
	})
	defer delete(waitRules, "test_wait")
	run := &metrics.Run{Streams: []metrics.Stream{
		{Name: "a", Waits: []metrics.Wait{{Name: "test_wait", Queued: 1}, {Name: "other"}, {Name: "test_wait", Queued: 2}}},
		{Name: "b"},
		{Name: "c", Waits: []metrics.Wait{{Name: "test_wait", Queued: 3}}},
	}}
	f := &finding{Case: &Case{Run: run}}
	f.waits()
	var got []string
	for _, d := range f.out {
		got = append(got, d.Subject)
	}
	if want := []string{"a/1", "a/2", "c/3"}; !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a wait rule registered twice: no panic")
		}
	}()
	RegisterWaitRule("test_wait", func(Finding, *metrics.Stream, metrics.Wait) {})
}
