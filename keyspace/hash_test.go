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
