package compile_test

import (
	"math"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// With a time-bucketed key, explain's peak takes the routing of the peak window, not the
// run's. testdata/explain/hour-ramp.toml: key hour(ts) over 3 shards on 3 nodes of 1 core;
// put ramps from 100/s at 00:00 to 1000/s at 01:00 and holds to 02:00, get holds 200/s,
// both cost 0.5 ms. The cluster's work peaks from 01:00 on, so both streams' peak windows
// are 01:00-01:01, where every request goes to hour 1's shard:
//
//	load at 01:00 of hour 1's shard = (1000 + 200)/s x 0.5 ms / 1 core = 60%;  of hour 0's = 0
//
// (with the run's routing instead, put's share of hour 1 being 3.6M/5.58M = 0.645 and get's
// 0.5: 1000/s x 0.645 x 0.5 ms + 200/s x 0.5 x 0.5 ms = 37.3%). Over the run, put sends (100+1000)/2 x 3600 = 1.98M
// requests in hour 0 and 3.6M in hour 1, get 0.72M in each, over 7200 s:
//
//	mean(hour 1's shard) = (3.6M + 0.72M)/7200 s x 0.5 ms = 30%
//	mean(hour 0's shard) = (1.98M + 0.72M)/7200 s x 0.5 ms = 18.75%
//
// The peak figures are exact (every sampled request of the window is in hour 1); the means
// rest on a sample of 100,000 requests per stream, whose shares have a standard error
// under 0.002, so they are held to 0.01 (absolute, in load).
func TestExplainPeakUsesPeakWindowRouting(t *testing.T) {
	sc, err := scenarios.Load("../testdata/explain/hour-ramp.toml", scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ex := sc.Variants[0].Explain()
	put, get := ex.Streams[0], ex.Streams[1]
	// Hour 1's shard is where the peak window sends put; hour 0's the other one the run's
	// routing uses.
	hour1 := -1
	for s, p := range put.PeakShares {
		if p > 0.999 {
			hour1 = s
		}
	}
	if hour1 < 0 {
		t.Fatalf("put's peak shares %v: want all on one shard", put.PeakShares)
	}
	hour0 := -1
	for s, p := range put.Shares {
		if s != hour1 && p > 0.3 {
			hour0 = s
		}
	}
	if hour0 < 0 {
		t.Fatalf("put's run shares %v: hours 0 and 1 share a shard, the scenario tests nothing", put.Shares)
	}
	if put.PeakAt != sim.Hour || get.PeakAt != sim.Hour {
		t.Errorf("peak at %v and %v, want 1h for both (get's constant rate lines up with put's peak)", put.PeakAt, get.PeakAt)
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s: %.4f, want %.4f ± %.4f", what, got, want, tol)
		}
	}
	near("peak of hour 1's shard", ex.Shards[hour1].Peak, 0.60, 1e-9)
	// Peak is the highest load at any instant, not the load at the streams' peak: hour
	// 0's shard takes every request of the last window of hour 0, where put runs at
	// 100 + 900 x (1h - 1ns)/1h, 1000/s to within 3e-10/s, so it is offered
	// (1000 + 200)/s x 0.5 ms = 60% just before 01:00 (and nothing at 01:00).
	near("peak of hour 0's shard", ex.Shards[hour0].Peak, 0.60, 1e-9)
	if at := ex.Shards[hour0].PeakAt; at != sim.Hour-1 {
		t.Errorf("hour 0's shard peaks at %v, want 1ns before 1h (the last instant of its hour)", at)
	}
	if at := ex.Shards[hour1].PeakAt; at != sim.Hour {
		t.Errorf("hour 1's shard peaks at %v, want 1h", at)
	}
	near("peak of hour 1's node", ex.Nodes[ex.Shards[hour1].Node].Peak, 0.60, 1e-9)
	near("mean of hour 1's shard", ex.Shards[hour1].Mean, 0.30, 0.01)
	near("mean of hour 0's shard", ex.Shards[hour0].Mean, 0.1875, 0.01)
}

// followersScenario: 3 nodes of 1 core, 3 shards by hash of id, one follower per shard
// applying each write for 0.5 ms (cluster.apply_cost); writes of 100/s and reads of 300/s,
// both at 1 ms.
const followersScenario = `name = "followers"
seed = 5
duration = "10s"
window = "1s"
[cluster]
nodes = 3
cores = 1
replicas = 1
apply_cost = "0.5ms"
[table.fields]
id = { gen = "uniform", n = 100000 }
[keyspace]
scheme = "hash"
shards = 3
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 100
cost = "1ms"
[[streams]]
name = "r"
op = "read"
rate = 300
cost = "1ms"
`

// TestExplainFollowersClosedForm: explain counts what the followers add where the totals
// are known exactly, whatever the sampled routing: the writes offer 100/s x 1 ms = 0.1
// core on their leaders and 100/s x 0.5 ms = 0.05 on the followers that apply them, the
// reads 300/s x 1 ms = 0.3; so the nodes' loads sum to 0.45 (every node has one core).
// A shard's load is its leader's: 0.1 + 0.3 = 0.4 over the shards, and with read_from =
// "any", which spreads the reads evenly over the leader and its follower, 0.1 + 0.15 =
// 0.25. The write stream's work is 0.15, the reads' 0.3; the followers' note comes first.
func TestExplainFollowersClosedForm(t *testing.T) {
	for _, readAny := range []bool{false, true} {
		var sets []string
		wantShards := 0.4
		if readAny {
			sets, wantShards = []string{`cluster.read_from="any"`}, 0.25
		}
		sc, err := scenarios.LoadBytes("followers.toml", []byte(followersScenario), scenarios.Options{Sets: sets})
		if err != nil {
			t.Fatal(err)
		}
		ex := sc.Variants[0].Explain()
		sum := func(ls []compile.OfferedLoad, peak bool) float64 {
			x := 0.0
			for _, l := range ls {
				if peak {
					x += l.Peak
				} else {
					x += l.Mean
				}
			}
			return x
		}
		for _, peak := range []bool{false, true} {
			if got := sum(ex.Nodes, peak); math.Abs(got-0.45) > 1e-9 {
				t.Errorf("read_from any %v, peak %v: the nodes' loads sum to %.6f, want 0.45", readAny, peak, got)
			}
			if got := sum(ex.Shards, peak); math.Abs(got-wantShards) > 1e-9 {
				t.Errorf("read_from any %v, peak %v: the shards' loads sum to %.6f, want %.2f", readAny, peak, got, wantShards)
			}
		}
		if w := ex.Streams[0].Work; math.Abs(w-0.15) > 1e-9 {
			t.Errorf("read_from any %v: the writes' work %.6f, want 0.15 (0.1 on the leaders, 0.05 applied)", readAny, w)
		}
		if w := ex.Streams[1].Work; math.Abs(w-0.3) > 1e-9 {
			t.Errorf("read_from any %v: the reads' work %.6f, want 0.3", readAny, w)
		}
		if len(ex.Notes) == 0 || !strings.HasPrefix(ex.Notes[0], "1 follower(s) per shard") || strings.Contains(ex.Notes[0], "read_from") != readAny {
			t.Errorf("read_from any %v: notes %q; want the followers' first", readAny, ex.Notes)
		}
	}
}
