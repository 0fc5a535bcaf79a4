package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// BenchmarkPointRequests runs testdata/bench/hash12.toml (twelve single-core nodes, hash
// sharding, Poisson point writes, windows and histograms on) for b.N requests: one op is
// one simulated request, from arrival through queueing and service to its statistics.
// keys=zipf draws scrambled Zipf keys (s = 0.99, n = 1e7), whose exact sampler costs a log
// and an exp per draw; keys=uniform draws uniform keys and so measures the engine itself.
func BenchmarkPointRequests(b *testing.B) {
	const rate = 60000 // testdata/bench/hash12.toml
	for _, keys := range []struct{ name, gen string }{
		{"zipf", `{ gen = "zipf", n = 10_000_000, s = 0.99 }`},
		{"uniform", `{ gen = "uniform", n = 10_000_000 }`},
	} {
		b.Run(fmt.Sprintf("nodes=12/keys=%s", keys.name), func(b *testing.B) {
			secs := float64(b.N) / rate
			sc, err := scenarios.Load("../testdata/bench/hash12.toml", scenarios.Options{Sets: []string{
				fmt.Sprintf("duration=%q", time.Duration(secs*1e9+1).String()),
				"table.fields.user_id=" + keys.gen,
			}})
			if err != nil {
				b.Fatal(err)
			}
			m := sc.Variants[0].Model()
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			r := sim.Run(m)
			el := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(r.Streams[0].Offered)/el.Seconds(), "requests/s")
		})
	}
}
