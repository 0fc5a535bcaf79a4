package sweep_test

import (
	"testing"

	"github.com/shardsim/shardsim/sweep"
)

// The migration question, built in: sweeping keyspace.salt on salt-buckets (seeds 5, 6
// and 7, about 1.8 million writes per run) shows write p99 falling and the last-minute
// query's fan-out rising, and names the smallest bucket count whose p99 meets the 20 ms
// write SLO with confidence: the upper end of its 95% interval below 20 ms. (At 2 buckets
// each write shard runs at 94% of its cores: one seed passes, another runs away. One
// replication would answer 2.)
func TestSaltBucketsMigrationQuestion(t *testing.T) {
	salts := []string{"1", "2", "4", "8", "16", "64", "256"}
	rows, err := sweep.Run(sweep.Config{
		Scenario:     "salt-buckets",
		Axes:         []sweep.Axis{{Key: "keyspace.salt", Values: salts}},
		Replications: 3, Parallel: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	ingest := func(i int) float64 { return rows[i].Streams[0].P99.Mean }
	upper := func(i int) float64 { return rows[i].Streams[0].P99.Mean + rows[i].Streams[0].P99.Half }
	parts := func(i int) float64 { return rows[i].Streams[1].Partitions.Mean }
	smallest := ""
	for i, s := range salts {
		if smallest == "" && upper(i) < 20 {
			smallest = s
		}
		n := []float64{1, 2, 4, 8, 16, 64, 256}[i]
		// One partition per bucket, and a few more where the minute straddles a split.
		if parts(i) < n || parts(i) > 1.1*n+1 {
			t.Errorf("salt %s: the query visits %.2f partitions, want about %v", s, parts(i), n)
		}
		t.Logf("salt %4s: ingest p99 %9.2f ±%.2f ms, query p99 %9.2f ms, %6.2f partitions", s, ingest(i), rows[i].Streams[0].P99.Half, rows[i].Streams[1].P99.Mean, parts(i))
	}
	if ingest(0) < 1000 {
		t.Errorf("one bucket: ingest p99 %.1f ms, want above 1 s (a single shard takes 15,000 writes/s)", ingest(0))
	}
	if smallest != "4" {
		t.Errorf("the smallest bucket count meeting ingest p99 < 20 ms is %q, want 4", smallest)
	}
	if ingest(3) > 5 || ingest(4) > 5 {
		t.Errorf("8 and 16 buckets: ingest p99 %.2f and %.2f ms, want under 5 ms", ingest(3), ingest(4))
	}
	if ingest(6) <= ingest(4) {
		t.Errorf("256 buckets: ingest p99 %.2f ms is not above 16 buckets' %.2f ms; the query's fan-out should cost the writes", ingest(6), ingest(4))
	}
}
