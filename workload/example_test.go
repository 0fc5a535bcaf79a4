package workload_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shardsim/shardsim/workload"
)

// A Zipf generator over a billion ids with exponent 0.99: the most popular rank has
// probability 1/Σ_{j<=1e9} j^-0.99 ≈ 0.042 whatever the id space size, and with
// scrambling it is some id in the middle of the range rather than 0.
func ExampleZipf() {
	r := rand.New(rand.NewPCG(1, 2))
	z := workload.NewZipf(1_000_000_000, 0.99, true)
	top := z.ID(0)
	const draws = 1_000_000
	hits := 0
	for range draws {
		if z.Next(r, 0) == top {
			hits++
		}
	}
	fmt.Printf("cardinality %d\n", z.Info().Cardinality)
	fmt.Printf("P(most popular id) ≈ %.2f\n", float64(hits)/draws)
	fmt.Println("most popular id is 0:", top == 0)
	// Output:
	// cardinality 1000000000
	// P(most popular id) ≈ 0.04
	// most popular id is 0: false
}

// A Poisson process over a schedule: 100 requests/s, ramping to 1000/s over ten minutes,
// then constant. The expected number of arrivals in a window is the schedule's Integral.
func ExamplePoisson() {
	const minute = 60 * int64(1e9)
	s := workload.Schedule{{At: 0, Rate: 100}, {At: 10 * minute, Rate: 1000}}
	fmt.Println("rate at 5 min:", s.Rate(5*minute))
	expected := s.Integral(0, 15*minute)
	fmt.Println("expected arrivals in the first 15 min:", expected)

	r := rand.New(rand.NewPCG(1, 2))
	a := workload.NewPoisson(s)
	n := 0
	for t := a.Next(r, 0); t < 15*minute; t = a.Next(r, t) {
		n++
	}
	// A Poisson count has standard deviation sqrt(expected) ≈ 794.
	fmt.Println("within 3 standard deviations:", math.Abs(float64(n)-expected) < 3*math.Sqrt(expected))
	// Output:
	// rate at 5 min: 550
	// expected arrivals in the first 15 min: 630000
	// within 3 standard deviations: true
}

// Deterministic arrivals at exactly 1/rate apart.
func ExampleUniformArrivals() {
	a := workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 4}})
	t := a.Next(nil, 0)
	for range 5 {
		fmt.Print(t, " ")
		t = a.Next(nil, t)
	}
	fmt.Println()
	// Output: 0 250000000 500000000 750000000 1000000000
}

// Snowflake ids encode the row time; SnowflakeMillis recovers it, even for history rows.
func ExampleSnowflake() {
	g := workload.NewSnowflake()
	tenYearsAgo := -10 * int64(365.25*24*3600*1e9)
	a := g.Next(nil, tenYearsAgo)
	b := g.Next(nil, tenYearsAgo)
	c := g.Next(nil, 1500*int64(1e6)) // 1.5 s
	fmt.Println(a < b, b < c)
	fmt.Println(workload.SnowflakeMillis(a), workload.SnowflakeMillis(c))
	// Output:
	// true true
	// -315576000000 1500
}
