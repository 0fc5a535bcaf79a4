package scenarios_test

import (
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestHotCounterStory runs the built-in hot-counter for 20 s (its file says 60 s; the
// story is the same from the first seconds) and checks what its description says, in
// numbers. The counts come from a deterministic run (seed 11): 72,000 increments offered
// (3,600/s), of which the row's 0.5 ms lock lets through 2,000/s.
func TestHotCounterStory(t *testing.T) {
	s := runOtherStory(t, "hot-counter", "duration=\"20s\"")
	const secs = 20.0
	inc := func(v string) (*sim.StreamResult, metrics.Stream) {
		return s.stream(v, "increment"), s.figures(v, "increment")
	}

	// One row: the lock serves 1/0.5 ms = 2,000 increments a second (within 1%: the
	// writes in flight at the end), and the rest wait 50 ms and fail as lock failures.
	st, ms := inc("one row")
	if rate := float64(st.Completed) / secs; rate < 1980 || rate > 2020 {
		t.Errorf("one row: %.0f increments/s completed, want the lock's cap, 2,000/s", rate)
	}
	if ms.Failures[metrics.Lock] != st.Offered-st.Completed || ms.Failures[metrics.Lock] < 25_000 {
		t.Errorf("one row: %d lock failures of %d offered, %d completed; want every failure a lock failure, about 1,600/s", ms.Failures[metrics.Lock], st.Offered, st.Completed)
	}
	if ms.Locks == nil || *ms.Locks.Mean < 40 || len(ms.Locks.Hot) != 1 {
		t.Errorf("one row: lock figures %+v, want a mean wait near the 50 ms timeout on one hot lock", ms.Locks)
	}
	_, one := s.hottest("one row")

	// What binds is the row's lock, offered 3,600 × 0.5 ms = 1.8 times what it passes
	// (within 3%: the Poisson count over 20 s and the one-row share of the sampled writes,
	// which is exact), not the cores of a node at a quarter of its load; the diagnosis names
	// the lock and asks for write sharding (at least 2 × 1.8 rows), not for a key with an
	// id in it (low_cardinality).
	m := metrics.Of(s.result("one row"))
	if b := metrics.BottleneckOf(m, false); b.Resource != metrics.Locks || b.Stream != "increment" || b.Lock < 1.75 || b.Lock > 1.85 {
		t.Errorf("one row: binds %v of %q at %.3f (%s), want the row locks of increment at 1.8", b.Resource, b.Stream, b.Lock, b.Text)
	}
	s.wantDiagnosis("one row", "hot_row_lock", "write-shard it over at least 4 rows")
	s.wantDiagnosis("one row, 16 cores", "hot_row_lock", "increment")
	for _, v := range []string{"one row", "one row, 16 cores"} {
		if kinds, _ := s.diagnoses(v); len(kinds) != 1 {
			t.Errorf("%s: diagnosis %v, want hot_row_lock alone", v, kinds)
		}
	}

	// Four times the cores: the node is idler, the lock serves exactly as many.
	st16, ms16 := inc("one row, 16 cores")
	if st16.Completed != st.Completed || ms16.Failures[metrics.Lock] != ms.Failures[metrics.Lock] {
		t.Errorf("16 cores: %d completed, %d lock failures; want the one-row figures, %d and %d", st16.Completed, ms16.Failures[metrics.Lock], st.Completed, ms.Failures[metrics.Lock])
	}
	if _, b := s.hottest("one row, 16 cores"); b > one/3 {
		t.Errorf("16 cores: hottest shard at %.1f%% of its node, want about a quarter of the 4-core node's %.1f%%", 100*b, 100*one)
	}

	// Eight salt buckets: 450/s a lock, every increment served; reads of the total visit
	// all eight buckets.
	stS, msS := inc("8 salt buckets")
	if msS.Failed != 0 || stS.Completed != stS.Offered {
		t.Errorf("8 salt buckets: %d of %d increments failed, want none", msS.Failed, stS.Offered)
	}
	if p99 := *msS.Latency.P99; p99 > 10 {
		t.Errorf("8 salt buckets: increment p99 %.2f ms, want under 10 ms", p99)
	}
	if _, parts := s.fanout("8 salt buckets", "read_total"); parts != 8 {
		t.Errorf("8 salt buckets: a read of the total visits %.1f partitions, want 8", parts)
	}
	// A healthy design: eight rows of 450 writes/s, each lock under a quarter busy, on
	// shards with cores to spare; no diagnosis (low_cardinality was one: eight partitions
	// over sixteen shards).
	s.wantDiagnosis("8 salt buckets", "", "")

	// DynamoDB: with the bank full, 20 s of 2,600 writes/s over the limit draw 52,000
	// units from a bank of 300,000: nothing is throttled. With the bank empty, the row
	// gets its 1,000 units a second and no more (within 1%).
	if _, m := inc("DynamoDB 1,000 WCU, bank full"); m.Failures[metrics.Throttled] != 0 {
		t.Errorf("bank full: %d writes throttled, want none in 20 s", m.Failures[metrics.Throttled])
	}
	stE, msE := inc("DynamoDB 1,000 WCU, bank empty")
	if rate := float64(stE.Completed) / secs; rate < 990 || rate > 1010 || msE.Failures[metrics.Throttled] != stE.Offered-stE.Completed {
		t.Errorf("bank empty: %.0f writes/s completed, %d throttled of %d; want 1,000/s and the rest throttled", rate, msE.Failures[metrics.Throttled], stE.Offered)
	}
	if w := s.result("DynamoDB 1,000 WCU, bank empty").Streams[0].Win[0]; w.Failed[limits.Throttled] < 10_000 {
		t.Errorf("bank empty: %d writes throttled in the first 5 s window, want throttling from the start", w.Failed[limits.Throttled])
	}
}

// TestDynamoDBBurstDemo is the DynamoDB article's demo: five threads each writing to one
// partition key as fast as they can, against a table of 10 WCU. Each write takes 10 ms
// (4 ms each way and 2 ms of service), so five closed-loop clients with no think time
// write about 500 times in the second the run lasts. With DynamoDB's burst bank full at
// the start (300 s x 10 WCU = 3,000 units, the default) none is throttled, which is why
// the demo "works" only on a table that has been busy; with the bank empty
// (burst_initial = "0s") the partition refills at 10 units a second, and all but about
// ten of the writes are throttled from the first 100 ms window on.
func TestDynamoDBBurstDemo(t *testing.T) {
	const src = `
name     = "dynamodb-demo"
duration = "1s"
window   = "100ms"
[cluster]
nodes   = 1
cores   = 4
network = "4ms"
[table.fields]
pk = { gen = "categorical", values = ["SENSOR_READING#2023-10-27"] }
[keyspace]
shards = 1
key    = ["pk"]
limits = { write_units = 10, table_write_units = 10 }
[[streams]]
name    = "put_item"
op      = "write"
clients = 5
think   = "0s"
cost    = "2ms"
service = "constant"
`
	run := func(sets ...string) *sim.StreamResult {
		sc, err := scenarios.LoadBytes("dynamodb-demo.toml", []byte(src), scenarios.Options{Sets: sets})
		if err != nil {
			t.Fatal(err)
		}
		return &sim.Run(sc.Variants[0].Model()).Streams[0]
	}
	full := run()
	if full.Offered < 450 || full.Offered > 550 || full.Failed[limits.Throttled] != 0 {
		t.Errorf("bank full: %d of %d writes throttled, want none of about 500", full.Failed[limits.Throttled], full.Offered)
	}
	empty := run("keyspace.limits.burst_initial=\"0s\"")
	if empty.Completed > 12 || empty.Failed[limits.Throttled] != empty.Offered-empty.Completed || empty.Win[0].Failed[limits.Throttled] == 0 {
		t.Errorf("bank empty: %d of %d writes completed, %d throttled (%d in the first 100 ms); want about 10 completed and throttling from the start",
			empty.Completed, empty.Offered, empty.Failed[limits.Throttled], empty.Win[0].Failed[limits.Throttled])
	}
	t.Logf("bank full: %d of %d writes throttled; bank empty: %d of %d", full.Failed[limits.Throttled], full.Offered, empty.Failed[limits.Throttled], empty.Offered)
}
