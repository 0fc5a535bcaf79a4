package scenarios_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shardsim/shardsim/scenarios"
)

// kvScenario replays LOG, a kvcache log beside the scenario.
const kvScenario = `name = "kv"
seed = 1
duration = "30s"
window = "5s"
[cluster]
nodes = 2
cores = 1
[table.fields]
key = { gen = "categorical", count = 100 }
[keyspace]
shards = 4
key = ["key"]
[[streams]]
name = "log"
trace = { path = "LOG", format = "kvcache" }
cost = "1ms"
`

// loadWithin loads a scenario file in a goroutine and fails the test if it takes longer
// than d (a hang must fail the test, not stall it).
func loadWithin(t *testing.T, path string, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := scenarios.Load(path, scenarios.Options{})
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("loading %s took more than %v", filepath.Base(path), d)
		return nil
	}
}

// TestTraceFIFORefused: a FIFO as a trace path is refused at its key, without opening it
// (validate used to wait for a writer for ever).
func TestTraceFIFORefused(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	path := filepath.Join(dir, "s.toml")
	os.WriteFile(path, []byte(strings.Replace(kvScenario, "LOG", "fifo", 1)), 0o644)
	err := loadWithin(t, path, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "streams[0].trace.path") || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("got %v, want a problem at streams[0].trace.path saying it is not a regular file", err)
	}
	if err != nil {
		// Unblock anything left waiting on the FIFO.
		if f, err := os.OpenFile(filepath.Join(dir, "fifo"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
}

// TestKVCacheOpCountBoundedFast: 20 kvcache rows of op_count 10^9 stand for 2·10^10
// requests; the scenario is refused by the request bound in seconds (counting them took
// an hour), and 20 rows of 10^5 pass with the requests counted.
func TestKVCacheOpCountBoundedFast(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		count int
		want  string
	}{{1_000_000_000, "at most 1e+10 are allowed"}, {100_000, ""}} {
		var b strings.Builder
		b.WriteString("op_time,key,key_size,op,op_count,size,cache_hits,ttl,usecase,sub_usecase\n")
		for i := range 20 {
			fmt.Fprintf(&b, "%d,k%d,3,GET,%d,10,1,0,1,1\n", 1700000000+i, i, tc.count)
		}
		log := fmt.Sprintf("log%d.csv", tc.count)
		os.WriteFile(filepath.Join(dir, log), []byte(b.String()), 0o644)
		path := filepath.Join(dir, fmt.Sprintf("s%d.toml", tc.count))
		os.WriteFile(path, []byte(strings.Replace(kvScenario, "LOG", log, 1)), 0o644)
		err := loadWithin(t, path, 20*time.Second)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("op_count %d: %v", tc.count, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("op_count %d: %v, want %q", tc.count, err, tc.want)
		}
	}
}

// TestTraceSpeedOnTheClock: speed 1e-300 made every replayed time infinite and the whole
// log arrived at t = 0; speeds under 10^-6 are refused at the key, and a speed whose
// stretched log passes the longest run (10000d) too. testdata/traces/access.csv spans
// 57.7 s: at 10^-6 it replays over 668 days, accepted; at 10^-6 with load_factor 0.01
// over 66,800 days, refused.
func TestTraceSpeedOnTheClock(t *testing.T) {
	base := strings.Replace(kvScenario, `"LOG", format = "kvcache"`, `"../testdata/traces/access.csv"`, 1)
	for _, tc := range []struct {
		speed, lf string
		want      string
	}{
		{"1e-300", "1", "streams[0].trace.speed: must be a number from 1e-06 to 1e+06 (got 1e-300)"},
		{"1e-6", "1", ""},
		{"1e-6", "0.01", "replays over 6.68e+04 days; at most 10000d is allowed"},
	} {
		src := strings.Replace(base, `.csv" }`, `.csv", speed = `+tc.speed+` }`, 1)
		src = strings.Replace(src, "seed = 1", "seed = 1\nload_factor = "+tc.lf, 1)
		_, err := scenarios.LoadBytes("s.toml", []byte(src), scenarios.Options{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("speed %s: %v", tc.speed, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("speed %s, load_factor %s: %v, want %q", tc.speed, tc.lf, err, tc.want)
		}
	}
}

// rowsScenario writes 20,000 rows a second into one range shard over two days of history
// and scans them all at row_cost 1s: a subrequest of 3.5·10^9 rows, 3.5·10^18 ns of
// service, which with the clock's time passed 2^63 and panicked the engine (a negative
// latency indexed out of the shard histogram).
const rowsScenario = `name = "rc"
seed = 1
duration = "60s"
window = "10s"
[cluster]
nodes = 1
cores = 4
[table]
history = "2d"
[table.fields]
ts = { gen = "time" }
[keyspace]
scheme = "range"
shards = 1
key = ["ts"]
[[streams]]
name = "w"
op = "write"
rate = 20000
cost = "0.1ms"
[[streams]]
name = "s"
op = "scan"
rate = 0.1
cost = "1ms"
row_cost = "1s"
where = { ts = "2d" }
`

// TestRowServiceOnTheClock: the scan above is refused at its row_cost, naming the days of
// service; at row_cost 1ms (40 days a subrequest) it passes.
func TestRowServiceOnTheClock(t *testing.T) {
	_, err := scenarios.LoadBytes("rc.toml", []byte(rowsScenario), scenarios.Options{})
	if err == nil || !strings.Contains(err.Error(), "rc.toml:26: streams[1].row_cost: a subrequest of stream s would read rows for about") {
		t.Errorf("got %v, want a problem at streams[1].row_cost", err)
	}
	if _, err := scenarios.LoadBytes("rc.toml", []byte(rowsScenario), scenarios.Options{Sets: []string{`streams[1].row_cost="1ms"`}}); err != nil {
		t.Error(err)
	}
}

// TestVariantsBounded: 1,001 trivial variants are refused at the variants key (10,000
// took 4 GB against an estimate of 247 MB); 1,000 load, and their estimate counts each
// variant's stream results (measured: TestMemoryEstimateMeasured).
func TestVariantsBounded(t *testing.T) {
	src := func(n int) []byte {
		var b strings.Builder
		b.WriteString(memBase)
		for i := range n {
			fmt.Fprintf(&b, "[[variants]]\nname = \"v%d\"\n", i)
		}
		return []byte(b.String())
	}
	_, err := scenarios.LoadBytes("v.toml", src(1001), scenarios.Options{})
	if err == nil || !strings.Contains(err.Error(), "v.toml:18: variants: 1001 [[variants]]; at most 1000 are allowed") {
		t.Errorf("1,001 variants: %v", err)
	}
	sc, err := scenarios.LoadBytes("v.toml", src(1000), scenarios.Options{Sets: []string{"streams.w.rate=100"}})
	if err != nil {
		t.Fatal(err)
	}
	if mb := sc.Memory / (1 << 20); mb < 400 {
		t.Errorf("1,000 variants estimated at %.0f MB, want 400 or more", mb)
	}
}

// TestCacheAtCapacityCounted: a cache at its largest capacity (50 million keys: 3.66 GB
// measured, estimated at 36 MB) is counted at its full size, and two such variants at once
// are refused naming the cache.
func TestCacheAtCapacityCounted(t *testing.T) {
	src := memBase + "[cache]\ncapacity = 50_000_000\nttl = \"30s\"\n"
	sets := []string{`streams.w.op="read"`, "streams.w.rate=1000", "cluster.cores=4"}
	sc, err := scenarios.LoadBytes("c.toml", []byte(src), scenarios.Options{Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	if gb := sc.Memory / (1 << 30); gb < 3.3 || gb > 4 {
		t.Errorf("a cache of 50 million keys estimated at %.2f GB, want 3.3 to 4", gb)
	}
	two := src + "[[variants]]\nname = \"a\"\n[[variants]]\nname = \"b\"\n"
	_, err = scenarios.LoadBytes("c.toml", []byte(two), scenarios.Options{Sets: sets, Parallel: 2})
	if err == nil || !strings.Contains(err.Error(), "for the cache's entries (cache.capacity)") {
		t.Errorf("two at once: %v", err)
	}
}

// TestLockWaitersCounted: one key's lock held 90% of the time or more may gather the 2
// million waiters that stop the run (testdata/memory/lock-waiters.toml: 831 MB measured,
// estimated at 36 MB before waiters were counted), unless the waiters give up: hot-counter's
// lock_timeout of 50 ms bounds them to its rate times 50 ms (30 MB measured).
func TestLockWaitersCounted(t *testing.T) {
	sc, err := scenarios.Load("../testdata/memory/lock-waiters.toml", scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if mb := sc.Memory / (1 << 20); mb < 700 {
		t.Errorf("lock waiters estimated at %.0f MB, want 700 or more", mb)
	}
	sc, err = scenarios.Load("hot-counter", scenarios.Options{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if mb := sc.Memory / (1 << 20); mb > 60 {
		t.Errorf("hot-counter estimated at %.0f MB, want at most 60", mb)
	}
}
