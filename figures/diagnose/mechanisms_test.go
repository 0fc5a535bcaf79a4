package diagnose

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
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

// TestStreamRules: a registered stream rule is applied to every stream in order, and what
// it explains (a stream through ExplainStream, a shard through Explain) is what the rules
// after it skip: a hot key of the stream it explains is not named.
func TestStreamRules(t *testing.T) {
	defer func(saved []StreamRule) { streamRules = saved }(streamRules)
	streamRules = nil
	RegisterStreamRule(func(v Finding, st *metrics.Stream) {
		if st.Name == "b" {
			return
		}
		v.ExplainStream(st.Name)
		v.Explain(st.HotShard)
		v.Add(Diagnosis{Kind: "test", Subject: st.Name})
	})
	run := &metrics.Run{Streams: []metrics.Stream{{Name: "a", HotShard: 1}, {Name: "b", HotShard: 2}, {Name: "c", HotShard: 3}}}
	f := &finding{Case: &Case{Run: run}, explained: map[int]bool{}, locked: map[string]bool{}}
	f.streams()
	var got []string
	for _, d := range f.out {
		got = append(got, d.Subject)
	}
	if want := []string{"a", "c"}; !slices.Equal(got, want) || !f.locked["a"] || f.locked["b"] || !f.explained[1] || f.explained[2] || !f.explained[3] {
		t.Errorf("findings %q, streams explained %v, shards explained %v; want %q, a and c, 1 and 3", got, f.locked, f.explained, want)
	}
	f.Variant, f.r = &metrics.Variant{}, &sim.Result{}
	f.loads, f.med = []float64{0.1, 0.9}, 0.1
	f.HotKeys = []metrics.HotKeys{{Stream: "a", Counted: 100, Keys: []metrics.HotKey{{Key: "k", Count: 90, Share: 0.9, Shard: 1}}}}
	f.out, f.locked = nil, map[string]bool{}
	if f.hotKeys(); len(f.out) != 1 || f.out[0].Kind != "hot_key" {
		t.Fatalf("a hot key of a stream no mechanism explains: %+v, want hot_key", f.out)
	}
	f.out, f.locked = nil, map[string]bool{"a": true}
	if f.hotKeys(); len(f.out) != 0 {
		t.Errorf("a hot key of a stream a mechanism explains: %+v, want no finding", f.out)
	}
}
