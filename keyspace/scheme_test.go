package keyspace

import (
	"fmt"
	"slices"
	"testing"
)

// TestSchemeRegistry: the schemes register themselves with their names in the
// documentation's order (error messages list them so), parse back, and build the scheme
// their name says, with the properties the planners and replays read.
func TestSchemeRegistry(t *testing.T) {
	if got, want := SchemeNames(), []string{"hash", "range", "directory", "redis_cluster"}; !slices.Equal(got, want) {
		t.Fatalf("SchemeNames() = %q, want %q", got, want)
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
		{SchemeHash, SchemeConfig{Shards: 4, Ring: true, Vnodes: 8}, "*keyspace.Ring", false, false},
		{SchemeRange, SchemeConfig{Shards: 4, Sample: sample}, "*keyspace.Range", true, false},
		{SchemeDirectory, SchemeConfig{Shards: 4, Directory: []DirEntry{{Part: 0, Value: 1, Shards: []int{3}}}}, "*keyspace.Directory", false, false},
		{SchemeRedisCluster, SchemeConfig{Shards: 2, Slots: EvenSlots(2)}, "*keyspace.RedisCluster", false, true},
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
	if s, err := SchemeDirectory.Build(SchemeConfig{Shards: 1, Directory: []DirEntry{{Value: 1, Shards: []int{0}}}}); err == nil || s != nil {
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
