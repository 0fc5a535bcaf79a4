package workload

import (
	"math"
	"testing"
)

// TestCategoricalWeights compares draws with the weights: weights {1,2,3,4,0,10,0.5,0}
// (two zero weights), N = 1e6 draws (seed 3); chi-square over the 6 non-zero categories,
// expected N·w_i/Σw, under the 0.999 quantile with 5 df (20.5; chi2Upper gives ≈20.6);
// and the zero-weight categories are never drawn.
func TestCategoricalWeights(t *testing.T) {
	w := []float64{1, 2, 3, 4, 0, 10, 0.5, 0}
	const draws = 1_000_000
	r := newRand(3)
	g := NewCategorical(len(w), w)
	if g.Info().Cardinality != uint64(len(w)) {
		t.Fatalf("Info %+v", g.Info())
	}
	counts := make([]int, len(w))
	for range draws {
		counts[g.Next(r, 0)]++
	}
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	var obs []int
	var exp []float64
	for i, x := range w {
		if x == 0 {
			if counts[i] != 0 {
				t.Errorf("category %d of weight 0 drawn %d times", i, counts[i])
			}
			continue
		}
		obs = append(obs, counts[i])
		exp = append(exp, draws*x/sum)
	}
	// chi2Upper is loose at df = 5; use the exact table value, 20.515 (p = 0.001).
	if chi := chiSquare(obs, exp); chi > 20.515 {
		t.Errorf("chi-square %.1f > 20.5; counts %v", chi, counts)
	}
}

// TestCategoricalManyWeights checks a 1000-category table built from random weights
// (seed 4, weights uniform on [0, 1) cubed, so very uneven): N = 2e6 draws, chi-square
// over all categories (expected N·w_i/Σw; categories with expectation < 5 pooled) under
// the 0.999 quantile for their degrees of freedom (chi2Upper).
func TestCategoricalManyWeights(t *testing.T) {
	const count, draws = 1000, 2_000_000
	r := newRand(4)
	w := make([]float64, count)
	sum := 0.0
	for i := range w {
		x := r.Float64()
		w[i] = x * x * x
		sum += w[i]
	}
	g := NewCategorical(count, w)
	counts := make([]int, count)
	for range draws {
		counts[g.Next(r, 0)]++
	}
	var obs []int
	var exp []float64
	pooledObs, pooledExp := 0, 0.0
	for i := range w {
		e := draws * w[i] / sum
		if e < 5 {
			pooledObs += counts[i]
			pooledExp += e
			continue
		}
		obs = append(obs, counts[i])
		exp = append(exp, e)
	}
	if pooledExp > 0 {
		obs = append(obs, pooledObs)
		exp = append(exp, pooledExp)
	}
	if chi, crit := chiSquare(obs, exp), chi2Upper(len(obs)-1, z999); chi > crit {
		t.Errorf("chi-square %.1f > %.1f (%d df)", chi, crit, len(obs)-1)
	}
}

// TestCategoricalUniform checks nil weights: count 10, N = 1e6 (seed 8), chi-square over
// the 10 categories under the 0.999 quantile with 9 df (27.88, exact table value); and
// count 1 always gives 0.
func TestCategoricalUniform(t *testing.T) {
	const count, draws = 10, 1_000_000
	r := newRand(8)
	g := NewCategorical(count, nil)
	obs := make([]int, count)
	exp := make([]float64, count)
	for i := range exp {
		exp[i] = draws / count
	}
	for range draws {
		obs[g.Next(r, 0)]++
	}
	if chi := chiSquare(obs, exp); chi > 27.88 {
		t.Errorf("chi-square %.1f > 27.88", chi)
	}
	one := NewCategorical(1, []float64{2.5})
	for range 100 {
		if v := one.Next(r, 0); v != 0 {
			t.Fatalf("count 1 gave %d", v)
		}
	}
}

// TestCategoricalPanics checks that invalid weights are refused.
func TestCategoricalPanics(t *testing.T) {
	for _, c := range []struct {
		count int
		w     []float64
	}{
		{0, nil}, {2, []float64{1}}, {2, []float64{0, 0}}, {2, []float64{1, -1}},
		{2, []float64{1, math.NaN()}}, {2, []float64{1, math.Inf(1)}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewCategorical(%d, %v) did not panic", c.count, c.w)
				}
			}()
			NewCategorical(c.count, c.w)
		}()
	}
}
