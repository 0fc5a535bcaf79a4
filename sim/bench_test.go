package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// BenchmarkPointRequests runs the hash12 scenario for b.N requests: one op is one simulated
// request (arrival, queueing, service, completion, statistics).
func BenchmarkPointRequests(b *testing.B) {
	const rate = 96000 // testdata/bench/hash12.toml
	b.Run("nodes=12", func(b *testing.B) {
		secs := float64(b.N) / rate
		sc, err := scenarios.Load("../testdata/bench/hash12.toml", scenarios.Options{
			Sets: []string{fmt.Sprintf("duration=%q", time.Duration(secs*1e9+1).String())},
		})
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
		n := r.Streams[0].Offered
		b.ReportMetric(float64(n)/el.Seconds(), "requests/s")
	})
}
