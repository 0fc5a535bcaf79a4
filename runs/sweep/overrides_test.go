package sweep_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shardsim/shardsim/runs/capacity"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

// TestVaryBeatsVariant: a varied key reaches a variant that sets the key itself
// (docs/sweeps.md: the value on the command line is the value that runs).
// `sweep iot-timeseries --variant "(salt 4, ts), range" --vary keyspace.salt=1,4,16`
// printed identical rows labelled 1, 4, 16: the variant's salt = 4 won every time. The
// dashboard's fan-out is the bucket count, up to the 32 shards, so it tells the rows apart.
func TestVaryBeatsVariant(t *testing.T) {
	c := sweep.Config{
		Scenario:     "iot-timeseries",
		Options:      scenarios.Options{Variants: []string{"(salt 4, ts), range"}, Sets: []string{`duration="4s"`, `warmup="1s"`}},
		Axes:         []sweep.Axis{{Key: "keyspace.salt", Values: []string{"1", "4", "16"}}},
		Replications: 1,
		Parallel:     2,
	}
	if notes := strings.Join(c.Notes(), "\n"); !strings.Contains(notes, `note: --vary keyspace.salt replaces variant "(salt 4, ts), range"'s keyspace.salt = 4`) {
		t.Errorf("notes %q", notes)
	}
	rows, err := sweep.Run(c)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 4, 16}
	for i, r := range rows {
		var fan float64
		for _, s := range r.Streams {
			if s.Name == "dashboard_15m" {
				fan = s.Subrequests.Mean
			}
		}
		if fan != want[i] {
			t.Errorf("salt %s: dashboard fan-out %v, want %v (the varied value, not the variant's 4)", r.Point.Values[0], fan, want[i])
		}
	}
	// The table names each row with the value it ran, not only with the variant's name
	// (which says salt 4 on every row).
	var b strings.Builder
	(&sweep.Sweep{Config: c, Rows: rows}).Text(&b)
	for _, salt := range []string{"1", "4", "16"} {
		if !strings.Contains(b.String(), "(salt 4, ts), range with keyspace.salt="+salt+" ") {
			t.Errorf("the table does not name salt %s:\n%s", salt, b.String())
		}
	}
}

// TestVaryWithoutEffectRefused: a varied key that leaves a variant's model unchanged at two
// points is an error naming the key and the variant: vnodes matter only to ring hashing,
// and salt 0 and 1 both mean no salt.
func TestVaryWithoutEffectRefused(t *testing.T) {
	for _, tc := range []struct {
		axis    sweep.Axis
		variant string
	}{
		{sweep.Axis{Key: "keyspace.vnodes", Values: []string{"8", "16"}}, "(salt 4, ts), range"},
		{sweep.Axis{Key: "keyspace.salt", Values: []string{"0", "1"}}, "ts, range"},
	} {
		c := sweep.Config{
			Scenario:     "iot-timeseries",
			Options:      scenarios.Options{Variants: []string{tc.variant}, Sets: []string{`duration="4s"`, `warmup="1s"`}},
			Axes:         []sweep.Axis{tc.axis},
			Replications: 1, Parallel: 1,
		}
		_, err := sweep.Run(c)
		if err == nil || !strings.Contains(err.Error(), "--vary "+tc.axis.Key) || !strings.Contains(err.Error(), `"`+tc.variant+`" runs the same model`) {
			t.Errorf("%s: error %v", tc.axis.Key, err)
		}
	}
}

// TestSweepSizeBounded: a sweep of more runs than MaxRuns is refused before anything is
// loaded (`-r 1000000` and a 40x40x40 --vary ran out of memory while setting up), and a
// stop requested while points load ends the sweep at once.
func TestSweepSizeBounded(t *testing.T) {
	var forty []string
	for i := 1; i <= 40; i++ {
		forty = append(forty, strconv.Itoa(i))
	}
	for _, c := range []sweep.Config{
		{Scenario: "quickstart", Axes: []sweep.Axis{{Key: "cluster.nodes", Values: forty}, {Key: "cluster.cores", Values: forty}, {Key: "keyspace.shards", Values: forty}}, Replications: 1, Parallel: 1},
		{Scenario: "quickstart", Axes: []sweep.Axis{{Key: "cluster.nodes", Values: []string{"2", "3"}}}, Replications: 1_000_000, Parallel: 1},
	} {
		start := time.Now()
		_, err := sweep.Run(c)
		var le *sweep.LimitError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "at most 10000 are allowed") {
			t.Errorf("error %v, want a LimitError", err)
		}
		if _, err := capacity.Run(capacity.Config{Config: c, SLOs: []sweep.SLO{{Stream: "get_profile"}}}); !errors.As(err, &le) {
			t.Errorf("capacity: error %v, want a LimitError", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("refused after %v", d)
		}
	}
	stopped := sweep.Config{Scenario: "quickstart", Axes: []sweep.Axis{{Key: "cluster.nodes", Values: []string{"2", "3"}}}, Replications: 1, Parallel: 1, Stop: func() bool { return true }}
	if _, err := sweep.Run(stopped); !errors.Is(err, sweep.ErrInterrupted) {
		t.Errorf("a stop before the first run: %v, want ErrInterrupted", err)
	}
}

// TestVaryBareWords: --vary reads its values as --set does, a bare word being a string:
// `--vary cluster.placement=round_robin,random` was refused ("strings must be quoted")
// while `--set cluster.placement=random` ran. The bare words and the quoted ones give the
// same rows (same seed, same models).
func TestVaryBareWords(t *testing.T) {
	run := func(vals ...string) []sweep.Row {
		c := sweep.Config{
			Scenario:     "quickstart",
			Options:      scenarios.Options{Sets: []string{`duration="4s"`, `warmup="1s"`}},
			Axes:         []sweep.Axis{{Key: "cluster.placement", Values: vals}},
			Replications: 1,
			Parallel:     2,
		}
		rows, err := sweep.Run(c)
		if err != nil {
			t.Fatalf("--vary cluster.placement=%s: %v", strings.Join(vals, ","), err)
		}
		return rows
	}
	bare, quoted := run("round_robin", "random"), run(`"round_robin"`, `"random"`)
	if len(bare) == 0 || len(bare) != len(quoted) {
		t.Fatalf("%d rows with bare words and %d quoted, want as many, and some", len(bare), len(quoted))
	}
	for i := range bare {
		if b, q := bare[i].HottestNodeLoad.Mean, quoted[i].HottestNodeLoad.Mean; b != q {
			t.Errorf("row %d: hottest node's load %v with bare words, %v quoted", i, b, q)
		}
	}
}
