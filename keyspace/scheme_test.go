package keyspace

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
)

// TestSchemeRegistry: docs/scenario.md's keyspace.scheme row lists the registered schemes
// in their order (error messages list them so; the list is generated: make docs), and
// each parses back and builds the scheme its name says, with the properties the planners
// and replays read. A new scheme is its file, its test and its section of docs/keys.md:
// this test names no scheme it must be told of but in the cases it builds.
func TestSchemeRegistry(t *testing.T) {
	names := SchemeNames()
	if len(names) < 2 {
		t.Fatalf("SchemeNames() = %q, want the built-in schemes", names)
	}
	list := make([]string, len(names))
	for i, n := range names {
		list[i] = "`" + n + "`"
	}
	docmark.Figures(t, "../docs/scenario.md", "schemes", map[string]string{
		"schemes.list": strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1],
	})
	for _, name := range SchemeNames() {
		k, _ := ParseScheme(name)
		if flags := slices.Contains(FlagSchemes(), name); flags != (k.NoFlags() == "") {
			t.Errorf("%s: in FlagSchemes %v, but NoFlags() = %q", name, flags, k.NoFlags())
		}
	}
	if k, ok := ParseScheme("consistent"); ok {
		t.Errorf("ParseScheme(consistent) = %q, true; want no such scheme", k)
	}
	sample := func() []Key { return nil }
	cases := []struct {
		kind            SchemeKind
		cfg             SchemeConfig
		want            string // the built scheme's type
		ordered, slotty bool
	}{
		{SchemeHash, SchemeConfig{Shards: 4}, "*keyspace.Modulo", false, false},
		{SchemeHash, SchemeConfig{Shards: 4, Options: HashOptions{Hash: "ring", Vnodes: 8}}, "*keyspace.Ring", false, false},
		{SchemeRange, SchemeConfig{Shards: 4, Sample: sample}, "*keyspace.Range", true, false},
		{SchemeDirectory, SchemeConfig{Shards: 4, Options: DirectoryOptions{Entries: []DirEntry{{Part: 0, Value: 1, Shards: []int{3}}}}}, "*keyspace.Directory", false, false},
		{SchemeRedisCluster, SchemeConfig{Shards: 2, Options: SlotOptions{Slots: EvenSlots(2)}}, "*keyspace.RedisCluster", false, true},
	}
	for _, c := range cases {
		k, ok := ParseScheme(string(c.kind))
		if !ok || k != c.kind {
			t.Errorf("ParseScheme(%q) = %q, %v", c.kind, k, ok)
		}
		s, err := k.Build(c.cfg)
		if err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		if got := fmt.Sprintf("%T", s); got != c.want {
			t.Errorf("%s built a %s, want %s", c.kind, got, c.want)
		}
		if k.Ordered() != c.ordered || k.Slots() != c.slotty {
			t.Errorf("%s: Ordered %v, Slots %v; want %v, %v", c.kind, k.Ordered(), k.Slots(), c.ordered, c.slotty)
		}
	}
	// A directory that names every shard is refused, as an error, not a scheme.
	if s, err := SchemeDirectory.Build(SchemeConfig{Shards: 1, Options: DirectoryOptions{Entries: []DirEntry{{Value: 1, Shards: []int{0}}}}}); err == nil || s != nil {
		t.Errorf("a directory of one shard that names it: got %v, %v; want an error and no scheme", s, err)
	}
}

// TestSaltModeNames: each salt mode's name parses back to it; an unknown name does not.
func TestSaltModeNames(t *testing.T) {
	for _, m := range []SaltMode{SaltRandom, SaltRoundRobin, SaltHash} {
		if got, ok := ParseSaltMode(m.String()); !ok || got != m {
			t.Errorf("ParseSaltMode(%q) = %v, %v", m.String(), got, ok)
		}
	}
	if _, ok := ParseSaltMode("sticky"); ok {
		t.Error("ParseSaltMode(sticky) found a mode")
	}
}

// fakeInput is a scheme's keys as a table gives them, and the problems reported.
type fakeInput struct {
	vals  map[string]any
	probs []string
}

func (f *fakeInput) Value(key string) any { return f.vals[key] }
func (f *fakeInput) Add(key, format string, args ...any) {
	f.probs = append(f.probs, key+": "+fmt.Sprintf(format, args...))
}
func (f *fakeInput) IntAtLeast(key string, p *int, def, minimum int) int {
	if p == nil {
		return def
	}
	if *p < minimum {
		f.Add(key, "must be at least %d (got %d)", minimum, *p)
		return def
	}
	return *p
}
func (f *fakeInput) OneOf(key, got, def string, allowed ...string) string {
	if got == "" {
		return def
	}
	if !slices.Contains(allowed, got) {
		f.Add(key, "not allowed")
		return def
	}
	return got
}

// TestSchemeOwnKeys: each scheme declares its own keys, resolves them in its phase into
// options of its own type, and describes, counts and builds from those options alone, so
// that scenario and compile name no scheme (docs/architecture.md, "Where a new thing goes").
func TestSchemeOwnKeys(t *testing.T) {
	var names []string
	for _, k := range SchemeKeys() {
		names = append(names, fmt.Sprintf("%s/%v", k.Name, k.Index))
	}
	if want := []string{"hash/true", "vnodes/true", "directory/false", "slots/false"}; !slices.Equal(names, want) {
		t.Errorf("SchemeKeys() = %q, want %q", names, want)
	}

	// The hash scheme's keys are checked whatever the scheme, its options kept for its own.
	ring, vnodes := HashKind("ring"), 8
	in := &fakeInput{vals: map[string]any{"hash": &ring, "vnodes": ptrTo(&vnodes)}}
	tab := &SchemeTable{Shards: 4, Replay: -1}
	if o, ok := SchemeRange.ResolveOptions(PhaseAlways, in, tab); ok || o != nil {
		t.Errorf("range kept the hash scheme's options: %v, %v", o, ok)
	}
	o, ok := SchemeHash.ResolveOptions(PhaseAlways, in, tab)
	if want := (HashOptions{Hash: "ring", Vnodes: 8}); !ok || o != want {
		t.Fatalf("hash resolved %v, %v; want %v", o, ok, want)
	}
	if qual, over := SchemeHash.Describe(o, 4); qual != "ring" || over != "" {
		t.Errorf("hash describes itself as %q, %q", qual, over)
	}
	if p := SchemeHash.Points(o, 4); p != 32 {
		t.Errorf("a ring of 4 shards x 8 vnodes counts %d points, want 32", p)
	}
	if p := SchemeHash.Points(HashOptions{Hash: "modulo"}, 4); p != 0 {
		t.Errorf("modulo counts %d ring points, want 0", p)
	}
	big := 10_000_000
	in = &fakeInput{vals: map[string]any{"vnodes": ptrTo(&big)}}
	SchemeHash.ResolveOptions(PhaseAlways, in, tab)
	if want := []string{"keyspace.vnodes: shards x vnodes must be at most 10000000 ring points (got 4 x 10000000)"}; !slices.Equal(in.probs, want) {
		t.Errorf("problems %q, want %q", in.probs, want)
	}

	// redis_cluster: its slot ranges give the shards, and are read after the key.
	slots := [][]int{{0, 99}, {100, RedisSlots - 1}}
	in = &fakeInput{vals: map[string]any{"slots": &slots}}
	if n := SchemeRedisCluster.Shards(in); n != 2 {
		t.Errorf("redis_cluster's two slot ranges give %d shards", n)
	}
	if _, ok := SchemeRedisCluster.ResolveOptions(PhaseShards, in, tab); ok {
		t.Error("redis_cluster resolved its slots before the key")
	}
	o, ok = SchemeRedisCluster.ResolveOptions(PhaseKey, in, &SchemeTable{Shards: 2, Replay: -1})
	if !ok || len(in.probs) > 0 || !slices.Equal(o.(SlotOptions).Slots, []SlotRange{{0, 99}, {100, RedisSlots - 1}}) {
		t.Fatalf("redis_cluster resolved %v, %v, problems %q", o, ok, in.probs)
	}
	if _, over := SchemeRedisCluster.Describe(o, 2); over != "2 slot ranges (shard 0: 0-99, 1: 100-16383)" {
		t.Errorf("redis_cluster describes its shards as %q", over)
	}

	// The directory refuses indexes and splits, in its own words.
	if SchemeDirectory.IndexRefusal() == "" || SchemeDirectory.SplitRefusal() == "" || SchemeHash.IndexRefusal() != "" || SchemeRange.SplitRefusal() != "" {
		t.Error("only the directory refuses indexes and automatic splits")
	}
}

func ptrTo[T any](p T) *T { return &p }
