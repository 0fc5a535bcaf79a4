package keyspace_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// These tests show what each key design does, in numbers, on the scenarios under
// testdata/keys, run through the same loader and engine as users' files.

func load(t *testing.T, name string, sets ...string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load("../testdata/keys/"+name, scenarios.Options{Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func stream(t *testing.T, r *sim.Result, name string) *sim.StreamResult {
	t.Helper()
	for i := range r.Streams {
		if r.Streams[i].Name == name {
			return &r.Streams[i]
		}
	}
	t.Fatalf("no stream %q", name)
	return nil
}

// A Snowflake key on the range scheme puts at least 99% of new writes on one shard (all of
// them, in fact: every new id is above every split point cut from the history), and a scan
// of the last hour by order_id visits that shard alone.
func TestSnowflakeRangeConcentratesWrites(t *testing.T) {
	sc := load(t, "snowflake-range.toml")
	r := sim.Run(sc.Variants[0].Model())
	var total, top int64
	hot := 0
	for i, sh := range r.Shards {
		total += sh.Rows
		if sh.Rows > top {
			top, hot = sh.Rows, i
		}
	}
	if total < 100_000 {
		t.Fatalf("only %d rows written", total)
	}
	if share := float64(top) / float64(total); share < 0.99 {
		t.Errorf("hottest shard %d holds %.2f%% of new rows, want >= 99%%", hot, 100*share)
	}
	if hot != len(r.Shards)-1 {
		t.Errorf("new rows land on shard %d, want the last range (shard %d)", hot, len(r.Shards)-1)
	}
	scan := stream(t, r, "last_hour")
	if scan.MaxFanout != 1 || scan.Subrequests != scan.Offered {
		t.Errorf("last-hour scan visits %d subrequests over %d scans (max %d), want exactly 1 each", scan.Subrequests, scan.Offered, scan.MaxFanout)
	}
}

// ["region_id", "hour(ts)"] with five regions: a 24-hour scan visits the 25 hourly buckets
// that [now-24h, now) overlaps for each region (5 x 25 = 125 partitions), or 5 x 24 = 120
// when now falls on an hour boundary, grouped into at most 12 subrequests (one per shard).
func TestRegionHourScanFanout(t *testing.T) {
	sc := load(t, "region-hour.toml")
	m := sc.Variants[0].Model()
	scan := &m.Streams[1]
	fields := make([]uint64, len(scan.Fields))
	r := rand.New(rand.NewPCG(1, 1))
	partitions := func(at sim.Time) (int, int) {
		v := scan.Planner.Plan(nil, r, fields, int64(at))
		n := 0
		for _, x := range v {
			n += int(x.Partitions)
		}
		return n, len(v)
	}
	for _, tc := range []struct {
		at   sim.Time
		want int
	}{
		{10 * sim.Hour, 120},                   // aligned: buckets 10:00 yesterday .. 09:00 today
		{10*sim.Hour + 30*sim.Minute, 125},     // 10:30 yesterday .. 10:29 today: 25 buckets
		{10*sim.Hour + sim.Nanosecond, 125},    // one nanosecond past the hour
		{-3*sim.Hour - 17*sim.Second, 125},     // in the history, floor division still holds
		{24*sim.Hour*400 + 59*sim.Minute, 125}, // far ahead
	} {
		n, subs := partitions(tc.at)
		if n != tc.want {
			t.Errorf("scan at %v visits %d partitions, want %d", tc.at, n, tc.want)
		}
		if subs > 12 {
			t.Errorf("scan at %v sends %d subrequests, want at most one per shard (12)", tc.at, subs)
		}
	}
	res := sim.Run(sc.Variants[0].Model())
	s := stream(t, res, "dashboard_24h")
	if mean := float64(s.Partitions) / float64(s.Offered); mean < 124.9 || mean > 125 {
		t.Errorf("mean partitions per dashboard scan %.3f, want 125 (120 only on an exact hour)", mean)
	}
	if s.MaxFanout > 12 {
		t.Errorf("dashboard fan-out %d subrequests, want at most 12", s.MaxFanout)
	}
}

// salt = 16 drawn at random: a point read visits all 16 buckets; derived from user_id, a
// read that knows the user visits one.
func TestSaltFanout(t *testing.T) {
	sc := load(t, "salt16.toml")
	for _, tc := range []struct {
		variant    string
		partitions float64
	}{{"random salt", 16}, {"salt from user_id", 1}} {
		var v *scenarios.Variant
		for _, x := range sc.Variants {
			if x.Name == tc.variant {
				v = x
			}
		}
		r := sim.Run(v.Model())
		get := stream(t, r, "get")
		if got := float64(get.Partitions) / float64(get.Offered); got != tc.partitions {
			t.Errorf("%s: a point read visits %.2f partitions, want %v", tc.variant, got, tc.partitions)
		}
		if put := stream(t, r, "put"); put.Partitions != put.Offered {
			t.Errorf("%s: writes visit %d partitions over %d writes, want one each", tc.variant, put.Partitions, put.Offered)
		}
	}
}

// A directory entry for tenant 0, which sends half the traffic, puts that traffic on its
// shards 10 and 11 alone, and no other tenant's rows land there. The check drives the
// model's own write planner over 200,000 requests.
func TestDirectoryCarvesOutTenant(t *testing.T) {
	sc := load(t, "directory.toml")
	m := sc.Variants[0].Model()
	put := &m.Streams[0]
	r := rand.New(rand.NewPCG(2, 2))
	fields := make([]uint64, len(put.Fields))
	tenantField := -1
	for i, g := range put.Fields {
		if g != nil && g.Info().Cardinality == 11 {
			tenantField = i
		}
	}
	if tenantField < 0 {
		t.Fatal("tenant_id generator not found")
	}
	var tenant0, onDedicated int
	for i := 0; i < 200_000; i++ {
		for f, g := range put.Fields {
			if g != nil {
				fields[f] = g.Next(r, 0)
			}
		}
		v := put.Planner.Plan(nil, r, fields, 0)
		dedicated := v[0].Shard == 10 || v[0].Shard == 11
		if fields[tenantField] == 0 {
			tenant0++
			if !dedicated {
				t.Fatalf("tenant 0's row went to shard %d, want 10 or 11", v[0].Shard)
			}
		} else if dedicated {
			t.Fatalf("tenant %d's row went to shard %d, which only tenant 0 may use", fields[tenantField], v[0].Shard)
		}
		if dedicated {
			onDedicated++
		}
	}
	// Tenant 0 has weight 50 of 100: its share is 0.5 +- 5 sigma (sigma = sqrt(.25/2e5)).
	if share := float64(tenant0) / 200_000; math.Abs(share-0.5) > 5*math.Sqrt(0.25/200_000) {
		t.Errorf("tenant 0 has %.4f of the traffic, want 0.5", share)
	}
	res := sim.Run(sc.Variants[0].Model())
	var rows [12]int64
	var total int64
	for i, sh := range res.Shards {
		rows[i] = sh.Rows
		total += sh.Rows
	}
	if share := float64(rows[10]+rows[11]) / float64(total); math.Abs(share-0.5) > 0.01 {
		t.Errorf("shards 10 and 11 hold %.3f of the rows, want 0.5", share)
	}
}

// explain's utilization-law prediction of each shard's load agrees with the simulated load
// within 5% on a stable scenario (10 simulated minutes, about 4.2 million requests).
func TestExplainPredictsSimulatedLoad(t *testing.T) {
	sc := load(t, "stable.toml")
	v := sc.Variants[0]
	ex := v.Explain()
	r := sim.Run(v.Model())
	for s := range r.Shards {
		got, want := r.Utilization(s), ex.Shards[s].Mean
		if math.Abs(got-want)/want > 0.05 {
			t.Errorf("shard %d: simulated load %.4f, explain predicted %.4f (off by %.1f%%)", s, got, want, 100*math.Abs(got-want)/want)
		}
	}
	loads := make([]float64, len(ex.Shards))
	for i, l := range ex.Shards {
		loads[i] = l.Mean
	}
	if slices.Max(loads) < 1.5*slices.Min(loads) {
		t.Errorf("the scenario's shards are too even (%.3f..%.3f) to test the prediction", slices.Min(loads), slices.Max(loads))
	}
}

// explain names the one shard that takes every write of a time-ordered range key.
func TestExplainNamesHotShard(t *testing.T) {
	sc := load(t, "snowflake-range.toml")
	ex := sc.Variants[0].Explain()
	w := ex.Streams[0]
	if w.Shares[11]/w.Partitions < 0.99 {
		t.Errorf("explain puts %.3f of the writes on shard 11, want >= 0.99", w.Shares[11]/w.Partitions)
	}
}

func TestRangeSplitsWhenHistoryIsEmpty(t *testing.T) {
	sc := load(t, "range-ramp-from-zero.toml")
	r := sim.Run(sc.Variants[0].Model())
	var total int64
	for _, sh := range r.Shards {
		total += sh.Rows
	}
	for i, sh := range r.Shards {
		if share := float64(sh.Rows) / float64(total); share < 0.2 || share > 0.3 {
			t.Errorf("shard %d holds %.3f of uniform keys, want about 0.25", i, share)
		}
	}
}

// explain's peak rate of a ramp that ends after the run is the rate at the end of the run
// (found by review: it took the first point's rate): 100/s at 0 rising to 10,000/s at 4h,
// cut at 3h, peaks at 100 + 9900 x 3/4 = 7525/s and averages (100 + 7525)/2 = 3812.5/s.
func TestExplainPeakOfRampPastTheEnd(t *testing.T) {
	sc := load(t, "ramp-past-end.toml")
	st := sc.Variants[0].Explain().Streams[0]
	if math.Abs(st.PeakRate-7525) > 1e-6 || math.Abs(st.MeanRate-3812.5) > 1e-6 {
		t.Errorf("peak %v, mean %v; want 7525 and 3812.5", st.PeakRate, st.MeanRate)
	}
}
