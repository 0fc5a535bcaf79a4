package keyspace

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

const hot = 7 // the copied value of field 0 in these tests

func copied(salt uint64, mode SaltMode, count int) *Design {
	return &Design{
		Parts: []Part{{Kind: FieldPart, Field: 0}, {Kind: FieldPart, Field: 1}},
		Salt:  salt, SaltMode: mode, SaltField: 1,
		Copies: &Copies{Field: 0, Keys: map[uint64]bool{hot: true, 9: true}, Count: count},
	}
}

// copyOf returns which copy a key of an unsalted or salted two-part design is.
func copyOf(d *Design, k *Key) int {
	n := len(d.Parts)
	if d.Salted() {
		n++
	}
	switch int(k.N) {
	case n:
		return 0
	case n + 1:
		return int(k.P[n])
	}
	return -1
}

// TestCopiedReadsAreUniform: reads of a hot key pick each of its 5 copies with equal
// chance. 50,000 reads with seed (11, 11); chi-square with 4 degrees of freedom, whose
// 0.999 quantile is 18.47. Each read visits one partition, on the shard of the copy it
// reports as LastKey.
func TestCopiedReadsAreUniform(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    *Design
	}{
		{"unsalted", copied(0, SaltRandom, 5)},
		{"hash salt", copied(4, SaltHash, 5)},
		{"random salt", copied(4, SaltRandom, 5)}, // every bucket, one copy
	} {
		scheme := NewModulo(64)
		p := NewPointPlanner(tc.d, scheme, true)
		r := rand.New(rand.NewPCG(11, 11))
		const n = 50_000
		var counts [5]float64
		for i := 0; i < n; i++ {
			v := p.Plan(nil, r, []uint64{hot, uint64(i % 3)}, 0)
			c := copyOf(tc.d, p.LastKey())
			if c < 0 || c >= 5 {
				t.Fatalf("%s: read of copy %d (key %v)", tc.name, c, p.LastKey().Parts())
			}
			counts[c]++
			parts := int32(0)
			for _, x := range v {
				parts += x.Partitions
			}
			if want := int32(max(tc.d.Salt, 1)); parts != want && tc.d.SaltMode == SaltRandom {
				t.Fatalf("%s: read visits %d partitions, want %d", tc.name, parts, want)
			}
			if v[0].Shard != int32(scheme.Shard(p.LastKey())) {
				t.Fatalf("%s: LastKey is on shard %d, the first visit on %d", tc.name, scheme.Shard(p.LastKey()), v[0].Shard)
			}
		}
		chi := 0.0
		for _, c := range counts {
			chi += (c - n/5) * (c - n/5) / (n / 5)
		}
		if chi > 18.47 {
			t.Errorf("%s: chi-square %.1f over 5 copies exceeds 18.47 (p = 0.001): %v", tc.name, chi, counts)
		}
	}
}

// TestCopiedWritesVisitEveryCopy: a write of a hot key writes all its copies, grouped by
// shard (with few shards, several copies share one), and draws nothing for them.
func TestCopiedWritesVisitEveryCopy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		d      *Design
		shards int
	}{
		{"unsalted, 64 shards", copied(0, SaltRandom, 6), 64},
		{"unsalted, 3 shards", copied(0, SaltRandom, 6), 3},
		{"random salt", copied(8, SaltRandom, 4), 16},
		{"round-robin salt", copied(8, SaltRoundRobin, 4), 16},
	} {
		scheme := NewModulo(tc.shards)
		p := NewPointPlanner(tc.d, scheme, false)
		r := rand.New(rand.NewPCG(12, 12))
		for i := 0; i < 200; i++ {
			fields := []uint64{9, uint64(i)}
			v := p.Plan(nil, r, fields, 0)
			// The planner's own key is copy 0; rebuild every copy from it.
			base := *p.LastKey()
			if copyOf(tc.d, &base) != 0 {
				t.Fatalf("%s: LastKey of a write is not copy 0: %v", tc.name, base.Parts())
			}
			want := make([]int32, tc.shards)
			for c := 0; c < tc.d.Copies.Count; c++ {
				k := base
				CopyKey(&k, c)
				want[scheme.Shard(&k)]++
			}
			got := make([]int32, tc.shards)
			for _, x := range v {
				if got[x.Shard] != 0 {
					t.Fatalf("%s: shard %d visited twice", tc.name, x.Shard)
				}
				got[x.Shard] = x.Partitions
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: partitions per shard %v, want %v", tc.name, got, want)
			}
		}
	}
}

// TestUncopiedKeysUnchanged: rows whose value is not copied route exactly as without
// copies, report the same LastKey and leave the random stream exactly where a design
// without copies leaves it.
func TestUncopiedKeysUnchanged(t *testing.T) {
	for _, salt := range []struct {
		n    uint64
		mode SaltMode
	}{{0, SaltRandom}, {4, SaltRandom}, {4, SaltRoundRobin}, {4, SaltHash}} {
		for _, read := range []bool{false, true} {
			with := copied(salt.n, salt.mode, 3)
			without := *with
			without.Copies = nil
			scheme := NewModulo(16)
			pw, po := NewPointPlanner(with, scheme, read), NewPointPlanner(&without, scheme, read)
			rw, ro := rand.New(rand.NewPCG(13, 13)), rand.New(rand.NewPCG(13, 13))
			for i := uint64(0); i < 2000; i++ {
				fields := []uint64{100 + i%50, i} // never 7 or 9
				vw, vo := pw.Plan(nil, rw, fields, 0), po.Plan(nil, ro, fields, 0)
				if !slices.Equal(vw, vo) || *pw.LastKey() != *po.LastKey() {
					t.Fatalf("salt %v, read %v, row %d: %v / %v with copies, %v / %v without", salt, read, i, vw, pw.LastKey().Parts(), vo, po.LastKey().Parts())
				}
			}
			if a, b := rw.Uint64(), ro.Uint64(); a != b {
				t.Errorf("salt %v, read %v: the random streams diverged", salt, read)
			}
			// A hot key draws: the check above would see it.
			pw.Plan(nil, rw, []uint64{hot, 0}, 0)
			po.Plan(nil, ro, []uint64{hot, 0}, 0)
			if a, b := rw.Uint64(), ro.Uint64(); read && a == b {
				t.Errorf("salt %v: a read of a copied key drew nothing", salt)
			}
		}
	}
}

// TestLastKey: the key of the partition a single-visit request went to, and bucket 0 of a
// read that visits every salt bucket; no allocation.
func TestLastKey(t *testing.T) {
	d := &Design{Parts: []Part{{Kind: FieldPart, Field: 0}}, Salt: 8, SaltMode: SaltRandom}
	scheme := NewModulo(32)
	w, rd := NewPointPlanner(d, scheme, false), NewPointPlanner(d, scheme, true)
	r := rand.New(rand.NewPCG(14, 14))
	fields := []uint64{42}
	for i := 0; i < 100; i++ {
		v := w.Plan(nil, r, fields, 0)
		k := w.LastKey()
		if k.N != 2 || k.P[1] != 42 || k.P[0] >= 8 || int32(scheme.Shard(k)) != v[0].Shard {
			t.Fatalf("write LastKey %v, visit %v", k.Parts(), v)
		}
	}
	rd.Plan(nil, r, fields, 0)
	if k := d.Key(fields, 0, 0); *rd.LastKey() != k {
		t.Errorf("read LastKey %v, want bucket 0: %v", rd.LastKey().Parts(), k.Parts())
	}
	dst := make([]Visit, 0, 32)
	if a := testing.AllocsPerRun(100, func() {
		dst = w.Plan(dst[:0], r, fields, 0)
		_ = w.LastKey()
		dst = rd.Plan(dst[:0], r, fields, 0)
		_ = rd.LastKey()
	}); a != 0 {
		t.Errorf("%v allocations per plan, want 0", a)
	}
}

func TestDesignValidate(t *testing.T) {
	parts := func(n int) []Part { return make([]Part, n) }
	for _, tc := range []struct {
		name string
		d    Design
		want string // "" for valid
	}{
		{"plain", Design{Parts: parts(MaxParts)}, ""},
		{"salted full", Design{Parts: parts(MaxParts - 1), Salt: 2}, ""},
		{"copies full", Design{Parts: parts(MaxParts - 2), Salt: 2, Copies: &Copies{Count: 2}}, ""},
		{"copies over", Design{Parts: parts(MaxParts - 1), Salt: 2, Copies: &Copies{Count: 2}}, "more than"},
		{"copies over, unsalted", Design{Parts: parts(MaxParts), Copies: &Copies{Count: 3}}, "more than"},
		{"one copy", Design{Parts: parts(1), Copies: &Copies{Count: 1}}, "at least 2"},
		{"negative field", Design{Parts: parts(1), Copies: &Copies{Field: -1, Count: 2}}, "negative"},
		{"zero width", Design{Parts: []Part{{Kind: TimeBucketPart}}}, "width"},
		{"zero modulus", Design{Parts: []Part{{Kind: HashPart}}}, "modulus"},
	} {
		err := tc.d.Validate()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want %q", tc.name, err, tc.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewPointPlanner accepted a copied design with too many parts")
		}
	}()
	NewPointPlanner(&Design{Parts: parts(MaxParts), Copies: &Copies{Count: 2}}, NewModulo(2), false)
}
