package workload

import (
	"math"
	"testing"
)

// TestHotspot: n = 1000, hotFraction 0.2 (hot set [0, 200)), hotOps 0.8; N = 1e6 draws
// (seed 9). The fraction of draws below 200 must be 0.8 within 5·sqrt(0.8·0.2/N)
// (±0.002); within each set the ids must be uniform: chi-square over 10 equal slices of
// the hot set and 10 of the cold set, each against its set's count / 10, under the 0.999
// quantile with 18 df (42.31, exact table value); and every id, including the ends of
// both sets (0, 199, 200, 999), is drawn at least once (each is expected ≥ 250 times).
func TestHotspot(t *testing.T) {
	const n, draws = 1000, 1_000_000
	r := newRand(9)
	g := NewHotspot(n, 0.2, 0.8)
	if g.HotSize() != 200 || g.Info().Cardinality != n {
		t.Fatalf("HotSize %d, Info %+v", g.HotSize(), g.Info())
	}
	slices := make([]int, 20)
	seen := make([]bool, n)
	hot := 0
	for range draws {
		v := g.Next(r, 0)
		if v >= n {
			t.Fatalf("value %d out of range", v)
		}
		seen[v] = true
		if v < 200 {
			hot++
			slices[v/20]++
		} else {
			slices[10+(v-200)/80]++
		}
	}
	for v, ok := range seen {
		if !ok { // the least likely id is expected 250 times
			t.Fatalf("id %d never drawn", v)
		}
	}
	f := float64(hot) / draws
	if math.Abs(f-0.8) > 5*math.Sqrt(0.8*0.2/draws) {
		t.Errorf("hot fraction %.4f, want 0.8", f)
	}
	exp := make([]float64, 20)
	for i := range exp {
		if i < 10 {
			exp[i] = float64(hot) / 10
		} else {
			exp[i] = float64(draws-hot) / 10
		}
	}
	if chi := chiSquare(slices, exp); chi > 42.31 {
		t.Errorf("within-set uniformity chi-square %.1f > 42.31", chi)
	}
	// ceil: 0.0001·1000 = 0.1 rounds up to one hot id.
	if h := NewHotspot(n, 0.0001, 0.5).HotSize(); h != 1 {
		t.Errorf("HotSize for fraction 0.0001 of 1000 = %d, want 1", h)
	}
}

// TestHotspotDegenerate: an empty hot set (fraction 0) or a hot set that is everything
// (fraction 1), whatever hotOps, gives ids uniform on [0, n): n = 50, N = 5e5 (seed 10),
// chi-square over the 50 ids under the 0.999 quantile with 49 df (chi2Upper ≈ 85.4).
func TestHotspotDegenerate(t *testing.T) {
	const n, draws = 50, 500_000
	r := newRand(10)
	for _, c := range [][2]float64{{0, 0.9}, {1, 0.1}, {0, 1}, {1, 0}} {
		g := NewHotspot(n, c[0], c[1])
		obs := make([]int, n)
		exp := make([]float64, n)
		for i := range exp {
			exp[i] = draws / n
		}
		for range draws {
			obs[g.Next(r, 0)]++
		}
		if chi, crit := chiSquare(obs, exp), chi2Upper(n-1, z999); chi > crit {
			t.Errorf("hotFraction %v hotOps %v: chi-square %.1f > %.1f", c[0], c[1], chi, crit)
		}
	}
}
