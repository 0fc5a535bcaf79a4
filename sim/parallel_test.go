package sim_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// loadShort loads scenario ref for a short run of duration (the warmup scaled down to
// fit), or fails the test.
func loadShort(t *testing.T, ref, duration string, sets ...string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load(ref, scenarios.Options{Sets: sets,
		Overrides: []scenarios.Override{{Flag: "--duration", Key: "duration", Value: fmt.Sprintf("%q", duration), ScaleWarmup: true}}})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// sameOnCores runs every variant of sc on one engine and on each number of cores, and
// fails unless every Result is the same, field by field; it returns how many runs were
// split among several workers.
func sameOnCores(t *testing.T, sc *scenarios.Scenario, cores ...int) (split int) {
	t.Helper()
	for _, v := range sc.Variants {
		want := sim.Run(v.Model())
		for _, n := range cores {
			got := sim.RunOn(n, v.Model)
			if got.Cores > 1 {
				split++
			}
			if n > 1 && got.Cores == 1 && got.OneCore == "" {
				t.Errorf("%s/%s on %d cores: ran on one with no reason given", sc.Name, v.Name, n)
			}
			got.Cores, got.OneCore, want.Cores = 0, "", 0
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s on %d cores: the result differs from one engine's%s", sc.Name, v.Name, n, resultDiff(got, want))
			}
		}
	}
	return split
}

// resultDiff names the top-level fields of two Results that differ, and the stream fields.
func resultDiff(a, b *sim.Result) string {
	var out []string
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, va.Type().Field(i).Name)
		}
	}
	for s := range min(len(a.Streams), len(b.Streams)) {
		sa, sb := reflect.ValueOf(a.Streams[s]), reflect.ValueOf(b.Streams[s])
		for i := range sa.NumField() {
			if !reflect.DeepEqual(sa.Field(i).Interface(), sb.Field(i).Interface()) {
				out = append(out, fmt.Sprintf("Streams[%d].%s", s, sa.Type().Field(i).Name))
			}
		}
	}
	return ": " + strings.Join(out, ", ")
}

// TestRunOnQuickstart: a split run of the quickstart (point reads and writes, and a scan
// whose visits span every worker) gives the same Result as one engine, for 1, 2, 3 and 7
// workers, and is split. 20 simulated seconds (about 170,000 requests and 20 scans per
// run; TestRunOnBuiltins compares every built-in at 10): the comparison is exact, field by
// field, so a longer run adds events, not a closer check.
func TestRunOnQuickstart(t *testing.T) {
	sc := loadShort(t, "quickstart", "20s")
	if split := sameOnCores(t, sc, 1, 2, 3, 7); split != 3*len(sc.Variants) {
		t.Errorf("%d runs split among workers, want %d", split, 3*len(sc.Variants))
	}
}

// TestRunOnBuiltins: every built-in scenario's every variant gives the same Result on 1,
// 2, 3 and 7 cores as on one engine, split or not.
func TestRunOnBuiltins(t *testing.T) {
	if testing.Short() {
		t.Skip("every built-in, four times: TestRunOnQuickstart covers -short")
	}
	for _, name := range scenarios.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			sc := loadShort(t, name, "10s")
			t.Logf("%d of %d runs split", sameOnCores(t, sc, 1, 2, 3, 7), 4*len(sc.Variants))
		})
	}
}

// TestRunOnFeedback: a run with client timeouts and retries (zero lookahead between the
// nodes and the clients) runs on one engine, and says why.
func TestRunOnFeedback(t *testing.T) {
	for _, v := range loadShort(t, "black-friday", "2m").Variants[:1] {
		r := sim.RunOn(2, v.Model)
		if r.Cores != 1 || !strings.Contains(r.OneCore, "retries") {
			t.Errorf("black-friday/%s on 2 cores: ran on %d, reason %q; want one, for the retries", v.Name, r.Cores, r.OneCore)
		}
	}
}

// TestRunOnSaturated: a run that passes the backlog bound saturates at a moment only one
// engine can find; split, a worker passes its share of the bound and the run is done
// again on one engine, with the same Result and the reason. Its unsaturated variant
// splits. Both are given two nodes, so that both workers have one to serve, and the
// overloaded one twice the cost.
func TestRunOnSaturated(t *testing.T) {
	sc := loadShort(t, "../testdata/saturated.toml", "5m", "keyspace.shards=4", "cluster.nodes=2")
	for _, v := range sc.Variants {
		build := func() *sim.Model {
			m := v.Model()
			m.MaxQueued = 20_000
			if v.Name == "overloaded" {
				m.Streams[0].Cost *= 2
			}
			return m
		}
		want := sim.Run(build())
		r := sim.RunOn(2, build)
		switch {
		case v.Name == "overloaded" && (!r.Saturated || r.Cores != 1 || !strings.Contains(r.OneCore, "saturated")):
			t.Errorf("overloaded: saturated %v on %d cores (%q); want saturated, on one core for that", r.Saturated, r.Cores, r.OneCore)
		case v.Name == "fine" && (r.Saturated || r.Cores != 2):
			t.Errorf("fine: saturated %v on %d cores (%q); want split", r.Saturated, r.Cores, r.OneCore)
		}
		r.Cores, r.OneCore = 0, ""
		if !reflect.DeepEqual(r, want) {
			t.Errorf("%s on 2 cores: the result differs from one engine's%s", v.Name, resultDiff(r, want))
		}
	}
}

// TestRunOnLatencySum: latencies that sum past 2^53 ns make the float sum depend on the
// order of additions, so such a run is done again on one engine, and says why.
func TestRunOnLatencySum(t *testing.T) {
	sc := loadShort(t, "../testdata/saturated.toml", "3m", "keyspace.shards=4", "cluster.nodes=2")
	build := func() *sim.Model {
		m := sc.Variants[0].Model() // overloaded: its backlog grows, and latencies with it
		m.Streams[0].Cost *= 2
		return m
	}
	want := sim.Run(build())
	r := sim.RunOn(2, build)
	if r.Cores != 1 || !strings.Contains(r.OneCore, "2^53") {
		t.Errorf("on %d cores (%q); want one, for the latency sum", r.Cores, r.OneCore)
	}
	r.Cores, r.OneCore = 0, ""
	if !reflect.DeepEqual(r, want) {
		t.Errorf("the result differs from one engine's%s", resultDiff(r, want))
	}
}

// TestRunOnDetail: a detail range's fine windows count completions on every worker, and
// merge cell by cell.
func TestRunOnDetail(t *testing.T) {
	sc := loadShort(t, "quickstart", "90s", `detail={ from = "30s", to = "60s", window = "5s" }`)
	if split := sameOnCores(t, sc, 2); split != len(sc.Variants) {
		t.Errorf("%d of %d runs split", split, len(sc.Variants))
	}
	if len(sim.Run(sc.Variants[0].Model()).Streams[0].Fine) == 0 {
		t.Error("no fine windows: the detail range is not on")
	}
}

// TestQueuedWorkPastTheClock: scans of 1 s a row over two days of history queue centuries
// of work at the node; draining it passed the clock's 2^63 nanoseconds and panicked on a
// negative window. The run stops as saturated at its end, on one engine and split.
func TestQueuedWorkPastTheClock(t *testing.T) {
	sc := loadShort(t, "../testdata/keys/row-cost-years.toml", "20s")
	for _, cores := range []int{1, 2} {
		r := sim.RunOn(cores, sc.Variants[0].Model)
		if !r.Saturated || r.SaturatedAt != r.Duration || r.Elapsed != r.Duration {
			t.Errorf("on %d cores: saturated %v at %v, elapsed %v; want saturated at the end, %v", cores, r.Saturated, r.SaturatedAt, r.Elapsed, r.Duration)
		}
	}
}
