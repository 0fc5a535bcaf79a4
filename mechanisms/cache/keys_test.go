package cache

import (
	"reflect"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
)

// reads adds a point read stream to mechtest.Minimal, whose one stream writes.
const reads = "[[streams]]\nname = \"r\"\nop = \"read\"\nrate = 10\ncost = \"1ms\"\n"

// TestCacheKeys: the [cache] table turns into the cache's setting, with hit_cost's
// default and every point read going through it; an action's cache, declared here, turns it
// on or off, a client's setting, with its timeline text; each bad
// value is reported at its key (docs/scenario.md, "[cache]").
func TestCacheKeys(t *testing.T) {
	s, probs := mechtest.Resolve(t, reads+"[cache]\ncapacity = 1000\nttl = \"30s\"\nenabled = false\n[[actions]]\nat = \"2s\"\ncache = true\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := []sim.Setting{Cache{
		Settings: Settings{Capacity: 1000, TTL: 30 * sim.Second, HitCost: 100 * sim.Microsecond, Off: true},
		Streams:  []int{1},
		Switches: []Switch{{At: 2 * sim.Second, On: true}},
	}}
	if !reflect.DeepEqual(s.Mechanisms, want) {
		t.Errorf("settings %#v, want %#v", s.Mechanisms, want)
	}
	// The action is the cache's setting, the client's (a network delay later), noted so.
	if a := s.Actions; len(a) != 1 || a[0].Setting != "cache" || a[0].Value != (Switch{At: 2 * sim.Second, On: true}) || !a[0].Client || a[0].Text != "cache on" {
		t.Errorf("actions %+v, want one cache switch on at 2s, a client's, \"cache on\"", a)
	}
	if s, _ := mechtest.Resolve(t, reads+"[cache]\ncapacity = 1000\nttl = \"30s\"\n[[actions]]\nat = \"3s\"\ncache = false\nnote = \"n\"\n"); len(s.Actions) != 1 || s.Actions[0].Text != "cache off (n)" {
		t.Errorf("actions %+v, want \"cache off (n)\"", s.Actions)
	}
	if s, _ := mechtest.Resolve(t, reads); len(s.Mechanisms) != 0 {
		t.Errorf("without [cache]: settings %#v, want none", s.Mechanisms)
	}
	for _, c := range []struct{ extra, want string }{
		{"[cache]\nttl = \"1s\"", "cache.capacity: required (the number of keys the cache holds, at least 1)"},
		{"[cache]\ncapacity = 10", `cache.ttl: required: how long a cached key stays fresh, a duration such as "30s"`},
		{"[cache]\ncapacity = 10\nttl = \"1s\"\nstreams = [\"w\"]", `cache.streams[0]: stream "w" is op = "write": only point reads go through the cache`},
		{"[cache]\ncapacity = 10\nttl = \"1s\"\nstreams = [\"r\", \"r\"]", `cache.streams[1]: stream "r" is listed twice`},
		{"[cache]\ncapacity = 10\nttl = \"1s\"\nstreams = [\"x\"]", `cache.streams[0]: no such stream "x" (have "w", "r")`},
		{"[cache]\ncapacity = 10\nttl = \"1s\"\njitter = 2.0", "cache.jitter: must be a fraction from 0 to 1 (got 2)"},
		{"[cache]\ncapacity = 10\nttl = \"1s\"\ntll = \"1s\"", `cache.tll: unknown key; did you mean "ttl"?`},
		{"[cache]\ncapacity = 60000000\nttl = \"1s\"", "cache.capacity: must be at most 50000000 (got 60000000)"},
		{"[[actions]]\nat = \"1s\"\ncache = true", "actions[0].cache: needs a [cache] table to turn on or off (with enabled = false it starts off)"},
		{"[cache]\ncapacity = \"ten\"\nttl = \"1s\"", `cache.capacity: expected an integer, got string "ten"`},
	} {
		_, probs := mechtest.Resolve(t, reads+c.extra+"\n")
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
}

// TestCacheFixedBytes: the memory of a cache of n entries is 64 bytes each and an index of
// 4-byte slots, the least power of two at or above 2n (at least 8).
func TestCacheFixedBytes(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{0, 0}, {1, 64 + 8*4}, {5, 5*64 + 16*4}, {1000, 1000*64 + 2048*4}} {
		if got := (Cache{Settings: Settings{Capacity: c.n}}).FixedBytes(); got != c.want {
			t.Errorf("capacity %d: %v bytes, want %v", c.n, got, c.want)
		}
	}
}
