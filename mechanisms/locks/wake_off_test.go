package locks_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/locks"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// wakeScenario is a row-lock scenario whose locked streams exercise every path a release
// takes: an open loop's Poisson writes to few rows with exponential holds and a lock
// timeout (waiters leave from anywhere), and a closed loop's 16 clients on the same rows
// under random grant; EXTRA is put into both streams.
const wakeScenario = `name = "wake"
seed = 3
duration = "6s"
warmup = "1s"
window = "1s"
[cluster]
nodes = 1
cores = 4
network = "0.1ms"
[table.fields]
id = { gen = "uniform", n = 4 }
[keyspace]
shards = 1
key = ["id"]
[[streams]]
name = "open"
op = "write"
rate = 3000
cost = "0.2ms"
lock = { dist = "exponential", mean = "1ms" }
lock_timeout = "5ms"
EXTRA
[[streams]]
name = "closed"
op = "write"
clients = 16
think = "0.5ms"
cost = "0.1ms"
lock = "0.5ms"
lock_grant = "random"
EXTRA
`

// runWake runs wakeScenario with extra in both streams.
func runWake(t *testing.T, extra string) *sim.Result {
	t.Helper()
	sc, err := scenarios.LoadBytes("wake.toml", []byte(strings.ReplaceAll(wakeScenario, "EXTRA", extra)), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sim.Run(sc.Variants[0].Model())
}

// TestWakeCostZeroIsOff: lock_wake_cost = "0s" is no wake cost: the run's Result equals,
// field for field (reflect.DeepEqual over every figure, histogram and window), the run of
// the same scenario without the key (wakeScenario, seed 3, 6 s: about 15,000 open-loop
// writes, many of which wait and some give up, and 16 clients' writes to the same rows). A
// positive cost, 15us, changes it (so the comparison can tell).
func TestWakeCostZeroIsOff(t *testing.T) {
	base := runWake(t, "")
	open, closed := metrics.LockCountsOf(base, 0), metrics.LockCountsOf(base, 1)
	if st := base.Streams[0]; open == nil || closed == nil || open.Waited == 0 || st.Failed[locks.TimedOut] == 0 || closed.Waited == 0 {
		t.Fatalf("open: %+v, %d timed out; closed: %+v: want both waited and some timed out", open, st.Failed[locks.TimedOut], closed)
	}
	if zero := runWake(t, `lock_wake_cost = "0s"`); !reflect.DeepEqual(base, zero) {
		t.Errorf("lock_wake_cost = \"0s\": the result differs from the run without the key (completed %d and %d, want %d and %d)",
			zero.Streams[0].Completed, zero.Streams[1].Completed, base.Streams[0].Completed, base.Streams[1].Completed)
	}
	if some := runWake(t, `lock_wake_cost = "15us"`); some.Streams[1].Completed >= base.Streams[1].Completed {
		t.Errorf("lock_wake_cost = \"15us\": the closed loop completed %d writes, want fewer than the %d without it", some.Streams[1].Completed, base.Streams[1].Completed)
	}
}

// TestWakeCostKeyLines: a bad lock_wake_cost is reported with the file, its line and its
// key, through the loader as every other key.
func TestWakeCostKeyLines(t *testing.T) {
	for _, c := range []struct{ extra, want string }{
		{`lock_wake_cost = "-15us"`, `wake.toml:22: streams[0].lock_wake_cost: must not be negative (got "-15us")`},
		{`lock_wake_cost = 15`, `wake.toml:22: streams[0].lock_wake_cost: must be a duration string such as "1h" (got integer 15)`},
	} {
		_, err := scenarios.LoadBytes("wake.toml", []byte(strings.Replace(strings.Replace(wakeScenario, "EXTRA", c.extra, 1), "EXTRA", "", 1)), scenarios.Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q in it", c.extra, err, c.want)
		}
	}
}
