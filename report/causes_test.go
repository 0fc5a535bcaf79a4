package report

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/locks"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// causes is a one-core node on which every cause but a partition limit fails requests:
// "put" sends 3,000 writes/s to one row whose 0.5 ms lock passes 2,000/s, with a 2 ms
// lock_timeout (lock); "get" offers 1.2 times the core into a queue of 5 (rejected) and
// gives up after 1 ms (timed_out); "capped" sends 100 reads/s through a client limit of
// 10/s (limited). Seed 1, 3 s.
const causes = `
name = "causes"
seed = 1
duration = "3s"
window = "1s"
[cluster]
nodes = 1
cores = 1
queue_limit = 5
network = "0.1ms"
[table.fields]
k = { gen = "uniform", n = 1000 }
[keyspace]
shards = 1
key = ["k"]
[[streams]]
name = "put"
op = "write"
rate = 3000
cost = "0.05ms"
lock = "0.5ms"
lock_timeout = "2ms"
fields = { k = { gen = "categorical", values = ["one"] } }
[[streams]]
name = "get"
op = "read"
rate = 3500
cost = "0.3ms"
timeout = "1ms"
[[streams]]
name = "capped"
op = "read"
rate = 100
cost = "0.1ms"
limit = { rate = 10 }
`

// Every output that shows errors shows them by cause (docs/scenario.md, "What the numbers
// mean"): in streams.csv each window's errors are its throttled, timed_out, rejected, limited
// and lock columns; in the run's CSV (-f csv) and summary.json each stream's failures are the
// sum of its causes, lock failures included; and each cause occurs in the run.
func TestErrorsByCause(t *testing.T) {
	path := filepath.Join(t.TempDir(), "causes.toml")
	if err := os.WriteFile(path, []byte(causes), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, runs := runAll(t, path)
	var buf bytes.Buffer
	if err := streamsCSV(&buf, sc, slices.Values(runs)); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	n := func(row []string, name string) int64 {
		i, ok := col[name]
		if !ok {
			t.Fatalf("streams.csv has no column %q: %v", name, rows[0])
		}
		x, err := strconv.ParseInt(row[i], 10, 64)
		if err != nil {
			t.Fatalf("streams.csv %s = %q", name, row[i])
		}
		return x
	}
	seen := map[string]int64{}
	for _, row := range rows[1:] {
		var sum int64
		for _, c := range []string{"throttled", "timed_out", "rejected", "limited", "lock"} {
			sum += n(row, c)
			seen[c] += n(row, c)
		}
		if e := n(row, "errors"); e != sum {
			t.Errorf("streams.csv %v: errors %d, causes add up to %d", row, e, sum)
		}
	}
	for _, c := range []string{"timed_out", "rejected", "limited", "lock"} {
		if seen[c] == 0 {
			t.Errorf("streams.csv: no %s failure in the run, want some of each cause", c)
		}
	}
	sum := Summarize(sc, runs)
	// put's one row is offered 3,000 writes/s x 0.5 ms = 1.5 times what its lock passes
	// (within 5%: the Poisson count over 3 s is 9,000 +- 95), and the lock table says so.
	if l := sum.Variants[0].Streams[0].Lock; l == nil || l.HoldMs == nil || *l.HoldMs != 0.5 || l.HotRowLoad < 1.425 || l.HotRowLoad > 1.575 {
		t.Errorf("put's lock summary %+v, want a 0.5 ms hold and a hot row load of 1.5", l)
	} else if lt := lockTable(&sum.Variants[0]); lt.head[len(lt.head)-1] != "hot row load" || lt.rows[0][len(lt.rows[0])-1] != units.Percent(l.HotRowLoad, 1) {
		t.Errorf("lock table %v %v, want the hot row load last", lt.head, lt.rows)
	}
	for _, st := range sum.Variants[0].Streams {
		if got := st.Rejected + st.Throttled + st.TimedOut + st.Limited + st.LockFailed; got != st.Failed {
			t.Errorf("summary %s: causes add up to %d, failed %d", st.Name, got, st.Failed)
		}
	}
	buf.Reset()
	if err := CSV(&buf, sum); err != nil {
		t.Fatal(err)
	}
	rows, err = csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col = map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if rows[0][len(rows[0])-1] != "lock" {
		t.Errorf("-f csv header %v, want lock appended last", rows[0])
	}
	for _, row := range rows[1:] {
		var sum int64
		for _, c := range []string{"rejected", "throttled", "timed_out", "limited", "lock"} {
			sum += n(row, c)
		}
		if f := n(row, "failed"); f != sum {
			t.Errorf("-f csv %v: failed %d, causes add up to %d", row, f, sum)
		}
	}
}

// The lock_timeout alert is timed against the node of the row writes queued for (the
// review's small.toml at 7 times its load said "after node 0 passed 90%" of a row on node
// 1): here node 0 runs at 95% from the first window while the hot row lives on shard 1,
// node 1, at 20%.
func TestLockAlertNamesTheRowsNode(t *testing.T) {
	sc, run := handBuilt(t, 2, 3, func(w, s int) float64 {
		if s == 0 {
			return 0.95
		}
		return 0.2
	})
	put := &run.Result.Streams[0]
	put.Win[1].Failed[locks.TimedOut], put.Win[1].Errors = 7, 7
	run.Result.Reports = append(run.Result.Reports, &metrics.LockResult{Streams: []*metrics.LockCounts{{Hot: []sim.KeyCount{{Values: []uint64{1}, Count: 40, Shard: 1}}}}})
	for _, a := range diagnose.Alerts(sc, run.Variant, run.Result) {
		if a.Kind != "lock_timeout" {
			continue
		}
		if strings.Contains(a.Detection, "node 0") || !strings.Contains(a.Detection, "node 1 was not above 90%") {
			t.Errorf("lock_timeout alert timed %q, want it against node 1, the row's", a.Detection)
		}
		return
	}
	t.Errorf("no lock_timeout alert")
}
