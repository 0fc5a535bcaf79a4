package keyspace

import (
	"math/rand/v2"
	"testing"
)

// TestModuloFastRemainder checks the division-free remainder against the % operator for
// every shard count up to 1000 and some large ones, on random and edge-case hashes.
func TestModuloFastRemainder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	ns := []int{1<<32 - 1, 1 << 31, 1<<31 + 1, 65537, 100_000}
	for n := 1; n <= 1000; n++ {
		ns = append(ns, n)
	}
	for _, n := range ns {
		m := NewModulo(n)
		for i := 0; i < 2000; i++ {
			a := r.Uint32()
			switch i {
			case 0:
				a = 0
			case 1:
				a = 1<<32 - 1
			case 2:
				a = uint32(n - 1)
			}
			if got, want := m.mod(a), uint64(a)%uint64(n); got != want {
				t.Fatalf("n=%d: mod(%d) = %d, want %d", n, a, got, want)
			}
		}
	}
}

// TestPointPlannerOneField checks the planner's short way for a key of one field against
// the general one: for 2,439 random values (seed 1) per shard count, for every count from
// 1 to 40 and 4096, on the hash and consistent-hash schemes, the shard must be the same.
func TestPointPlannerOneField(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	d := &Design{Parts: []Part{{Kind: FieldPart, Field: 1}}}
	fields := make([]uint64, 2)
	for _, n := range append(seq(1, 40), 4096) {
		schemes := []Scheme{NewModulo(n), NewRing(n, 8)}
		for _, s := range schemes {
			p := NewPointPlanner(d, s, false)
			if p.field != 1 {
				t.Fatalf("the one-field design does not take the short way")
			}
			for range 100_000 / 41 {
				fields[1] = r.Uint64() >> (r.Uint64() % 64)
				got := p.Plan(nil, r, fields, 0)
				want := p.plan(nil, r, fields, 0)
				if len(got) != 1 || got[0] != want[0] {
					t.Fatalf("n=%d %T v=%d: short way %v, general %v", n, s, fields[1], got, want)
				}
				if k := p.LastKey(); k.N != 1 || k.P[0] != fields[1] {
					t.Fatalf("LastKey %v after v=%d", k, fields[1])
				}
			}
		}
	}
}

func seq(a, b int) []int {
	var s []int
	for i := a; i <= b; i++ {
		s = append(s, i)
	}
	return s
}
