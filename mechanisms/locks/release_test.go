package locks_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/mechanisms/flush"
	"github.com/shardsim/shardsim/mechanisms/locks"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// runText loads scenario text and runs its first variant.
func runText(t *testing.T, text string) (*sim.Model, *sim.Result) {
	t.Helper()
	sc, err := scenarios.LoadBytes("release.toml", []byte(text), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Variants[0].Model()
	return m, sim.Run(m)
}

// releaseRow is one row written by C closed-loop clients with no think time and no network:
// each write holds the row's lock 1 ms, then takes 0.2 ms of CPU on one of 8 cores, then
// waits for its node's commit flush of 0.5 ms. All constant, so the run is deterministic.
const releaseRow = `name = "release"
seed = 1
duration = "21s"
warmup = "1s"
window = "1s"
[cluster]
nodes = 1
cores = 8
network = "0s"
queue_limit = 0
commit_flush = "0.5ms"
[table.fields]
id = { gen = "categorical", values = ["row"] }
[keyspace]
shards = 1
key = ["id"]
[[streams]]
name = "update"
op = "write"
clients = 4
think = "0s"
cost = "0.2ms"
service = "constant"
lock = "1ms"
lock_release = %q
`

// TestReleaseAtCommit: under lock_release = "commit" a row is held for the whole write,
// hold + cost + flush (its one write at a time finds the flusher idle, so the flush is
// exactly 0.5 ms), and one row serves 1 / 1.7 ms = 588.2 writes a second; under "hold"
// it is let go after the hold and serves 1 / 1 ms = 1,000 (4 clients keep it busy: each
// write's cycle, 1.7 ms, is under 4 holds). A commit that let go before the flush (the
// locks' completion hook before the flush's) would serve 1 / 1.2 ms = 833.3. Seed 1, 20 s
// counted; tolerance 0.5% (the first and last writes of the counted span).
func TestReleaseAtCommit(t *testing.T) {
	figs := map[string]string{"release.commit_theory": fmt.Sprintf("%.1f", 1/1.7e-3)}
	for _, c := range []struct {
		release string
		want    float64
	}{{"commit", 1 / 1.7e-3}, {"hold", 1 / 1e-3}} {
		_, r := runText(t, fmt.Sprintf(releaseRow, c.release))
		got := float64(r.Streams[0].Completed) / 20
		figs["release."+c.release] = grouped(got)
		msg := fmt.Sprintf("lock_release = %q: %.1f writes/s, want %.1f", c.release, got, c.want)
		if math.Abs(got-c.want)/c.want > 0.005 {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
	_, r := runText(t, refusedRow)
	u := r.Streams[0]
	figs["release.refused"], figs["release.completed"] = fmt.Sprintf("%d", u.Rejected), fmt.Sprintf("%d", u.Completed)
	for k, v := range figs {
		if k == "release.refused" || k == "release.completed" {
			figs[k] = groupInt(v)
		}
	}
	docmark.Figures(t, "../../docs/mitigations.md", "release", figs)
}

// grouped writes x with one decimal and thousands separated by commas, as the docs do.
func grouped(x float64) string {
	s := fmt.Sprintf("%.1f", x)
	return groupInt(s[:len(s)-2]) + s[len(s)-2:]
}

// groupInt separates the thousands of a decimal integer's digits with commas.
func groupInt(d string) string {
	for i := len(d) - 3; i > 0; i -= 3 {
		d = d[:i] + "," + d[i:]
	}
	return d
}

// TestReleaseAtCommitRefused: a write refused by its node's full queue after its hold still
// lets its row go. One core, a queue of 1, and reads at 95% of the core
// of the same row (1 ms each; reads take no lock) keep the queue full; 4 clients write one row under lock_release = "commit"
// (hold 0.1 ms, cost 0.1 ms, no retries), and some of their writes find the queue full
// after their hold. Were the lock kept, the row would stay locked for ever after the first
// refusal and its writers would complete nothing more. Seed 1, 20 s: the test wants
// refusals, and at least 2,000 writes completed.
func TestReleaseAtCommitRefused(t *testing.T) {
	_, r := runText(t, refusedRow)
	u := r.Streams[0]
	t.Logf("update: %d completed, %d refused by the full queue", u.Completed, u.Rejected)
	if u.Rejected == 0 {
		t.Fatalf("no write was refused by the full queue: the test does not reach the refusal")
	}
	if u.Completed < 2000 {
		t.Errorf("%d writes completed (%d refused): want at least 2,000; the row stays locked after a refusal", u.Completed, u.Rejected)
	}
}

// refusedRow is TestReleaseAtCommitRefused's scenario.
const refusedRow = `name = "refused"
seed = 1
duration = "21s"
warmup = "1s"
window = "1s"
[cluster]
nodes = 1
cores = 1
network = "0s"
queue_limit = 1
[table.fields]
id = { gen = "categorical", values = ["row"] }
[keyspace]
shards = 1
key = ["id"]
[[streams]]
name = "update"
op = "write"
clients = 4
think = "1ms"
cost = "0.1ms"
lock = "0.1ms"
lock_release = "commit"
[[streams]]
name = "read"
op = "read"
rate = 950
cost = "1ms"
`

// TestReleaseAtCommitAnyOrder: the row locks let a write's row go when the write completes,
// after every hook that holds its completion (the commit flush's), whatever order the
// model turns the mechanisms on in: TestReleaseAtCommit's row, with the locks' setting
// turned on before the flush's, still serves 1 / 1.7 ms = 588.2 writes a second, not the
// 1 / 1.2 ms = 833.3 of a lock let go before the flush. Seed 1, 20 s; tolerance 0.5%.
func TestReleaseAtCommitAnyOrder(t *testing.T) {
	sc, err := scenarios.LoadBytes("release.toml", []byte(fmt.Sprintf(releaseRow, "commit")), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Variants[0].Model()
	f := slices.IndexFunc(m.Mechanisms, func(s sim.Setting) bool { _, ok := s.(flush.CommitFlush); return ok })
	l := slices.IndexFunc(m.Mechanisms, func(s sim.Setting) bool { _, ok := s.(locks.RowLocks); return ok })
	if f < 0 || l < 0 || f > l {
		t.Fatalf("the commit flush's setting at %d, the row locks' at %d among the model's mechanisms: want both, the flush's first", f, l)
	}
	fs := m.Mechanisms[f]
	m.Mechanisms = slices.Insert(slices.Delete(m.Mechanisms, f, f+1), l, fs) // the flush's after the locks'
	r := sim.Run(m)
	got, want := float64(r.Streams[0].Completed)/20, 1/1.7e-3
	if math.Abs(got-want)/want > 0.005 {
		t.Errorf("locks turned on before the flush: %.1f writes/s, want %.1f (the lock held through the flush)", got, want)
	}
}
