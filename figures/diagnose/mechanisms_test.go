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

// TestRegisteredRulesByRank: the rules the mechanisms register are applied, and listed by
// Rules, in the order of their ranks whatever the order they were registered in (the
// packages' init order), in their place: after cluster_overloaded, before placement; what
// one explains, the next sees explained. A rank or a name registered twice panics.
func TestRegisteredRulesByRank(t *testing.T) {
	defer func(saved []ranked[Rule]) { rankedRules = saved }(rankedRules)
	rankedRules = nil
	var order []string
	rule := func(name string) Rule {
		return func(v Finding) {
			order = append(order, name)
			if name == "b" {
				v.Explain(0)
			}
			if name == "c" && !v.f.explained[0] {
				t.Error("rule c, after b: shard 0 not explained")
			}
		}
	}
	RegisterRule(30, "c", rule("c"))
	RegisterRule(10, "a", rule("a"))
	RegisterRule(20, "b", rule("b"))
	f := &finding{explained: map[int]bool{}}
	f.mechanisms()
	if want := []string{"a", "b", "c"}; !slices.Equal(order, want) {
		t.Errorf("applied in the order %q, want %q (by rank)", order, want)
	}
	names := Rules()
	at := slices.Index(names, "a")
	if at < 1 || names[at-1] != "cluster_overloaded" || !slices.Equal(names[at:at+3], []string{"a", "b", "c"}) || names[at+3] != "placement" {
		t.Errorf("rules %q, want a, b, c between cluster_overloaded and placement", names)
	}
	for _, c := range []struct {
		rank int
		name string
	}{{20, "d"}, {40, "a"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("rule %q at rank %d registered twice: no panic", c.name, c.rank)
				}
			}()
			RegisterRule(c.rank, c.name, rule(c.name))
		}()
	}
}

// TestStreamAlertsByRank: the alerts the mechanisms register are raised by rank whatever
// the order they were registered in, between errors and timed_out in a window, each once
// per stream (in the first window it fires in), timed against the node it names.
func TestStreamAlertsByRank(t *testing.T) {
	defer func(saved []ranked[StreamAlert]) { rankedAlerts = saved }(rankedAlerts)
	rankedAlerts = nil
	alert := func(kind string) StreamAlert {
		return func(_ *sim.Result, st *sim.StreamResult, w int) (string, int, bool) {
			return kind + " in " + st.Name, -1, st.Win[w].Errors > 0
		}
	}
	RegisterStreamAlert(2, "second", alert("second"))
	RegisterStreamAlert(1, "first", alert("first"))
	if got := AlertKinds(); !slices.Equal(got, []string{"first", "second"}) {
		t.Errorf("alert kinds %q, want first, second", got)
	}
	r := &sim.Result{Window: sim.Minute, Windows: 2, Duration: 2 * sim.Minute,
		Streams: []sim.StreamResult{{Name: "s", Win: []sim.WindowLatency{{Errors: 2, TimedOut: 1}, {Errors: 1}}}}}
	tl := &timeline{r: r, sc: &metrics.Scenario{}, on: newOnsets(&metrics.Scenario{}, r)}
	tl.stream(0, metrics.StreamInfo{})
	var got []string
	for _, a := range tl.out {
		got = append(got, a.Kind+"@"+a.At)
	}
	if want := []string{"errors@00:01", "first@00:01", "second@00:01", "timed_out@00:01"}; !slices.Equal(got, want) {
		t.Errorf("alerts %q, want %q", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Error("an alert kind registered twice: no panic")
		}
	}()
	RegisterStreamAlert(3, "first", alert("first"))
}
