package scenarios_test

import (
	"slices"
	"testing"

	"github.com/shardsim/shardsim/compile"
)

// TestUUIDKeysStory runs the built-in uuid-keys (seed 7, 30 s, about 150,000 orders a
// variant) and checks its description and its claims in numbers.
//
//   - A uuidv7 key under range puts at least 90% of the run's operations (writes and the
//     scans' subrequests) on the last shard: the splits are cut from 30 days of history and
//     every new id is newer than all of them (the run gives 100%).
//   - The same key under hash is even within 5%: each shard's operations are within 5% of
//     the mean. For a multinomial count of n = 150,000 writes over 8 shards the standard
//     error of one shard's count is sqrt(n·(1/8)·(7/8)) ≈ 128, 0.7% of the mean 18,750, so
//     5% is 7 standard errors (the run gives under 1%).
//   - UUIDv4 under range is even within 2x (no shard over twice the mean), and so is the
//     hash-prefixed fix over the seven shards that hold its buckets' newest rows.
//   - Every [[claims]] entry holds (report.Claims, the figures report.md shows).
func TestUUIDKeysStory(t *testing.T) {
	s := runOtherStory(t, "uuid-keys")
	ops := func(variant string) ([]int64, int64) {
		r := s.result(variant)
		out := make([]int64, len(r.Shards))
		var total int64
		for i, sh := range r.Shards {
			out[i] = sh.Ops
			total += sh.Ops
		}
		if total == 0 {
			t.Fatalf("%s: no operations", variant)
		}
		return out, total
	}
	v7r, total := ops("uuidv7, range")
	if last := float64(v7r[len(v7r)-1]) / float64(total); last < 0.9 {
		t.Errorf("uuidv7, range: the last shard served %.1f%% of the operations, want >= 90%% (%v)", 100*last, v7r)
	}
	v7h, total := ops("uuidv7, hash")
	mean := float64(total) / float64(len(v7h))
	for i, n := range v7h {
		if d := float64(n)/mean - 1; d > 0.05 || d < -0.05 {
			t.Errorf("uuidv7, hash: shard %d served %d operations, %.1f%% from the mean %.0f; want within 5%%", i, n, 100*d, mean)
		}
	}
	for _, v := range []string{"uuidv4, range", "fix: (hash(order_id) % 7, order_id), range"} {
		o, total := ops(v)
		mean := float64(total) / float64(len(o))
		for i, n := range o {
			if float64(n) > 2*mean {
				t.Errorf("%s: shard %d served %d operations, over twice the mean %.0f", v, i, n, mean)
			}
		}
	}
	// The read locality of recent rows: one partition under range, every shard otherwise.
	for v, want := range map[string]float64{"uuidv4, range": 8, "uuidv7, range": 1, "uuidv7, hash": 8, "fix: (hash(order_id) % 7, order_id), range": 7} {
		if _, parts := s.fanout(v, "recent_orders"); parts != want {
			t.Errorf("%s: the last hour's scan visits %.2f partitions, want %g", v, parts, want)
		}
	}
	// explain predicts the routing before any run, as for a snowflake key: the sampled
	// writes of uuidv7 under range all on the last shard, under hash none over 1/8 + 0.02
	// (2,000 or more samples: a shard's share has a standard error under 0.0074).
	for _, v := range s.sc.Variants {
		ex := compile.Explain(v.Name, v.Spec)
		sh := ex.Streams[0].Shares
		top := slices.Max(sh)
		switch v.Name {
		case "uuidv7, range":
			if sh[len(sh)-1] < 0.99 {
				t.Errorf("explain, %s: the last shard gets %.3f of create_order's writes, want all", v.Name, sh[len(sh)-1])
			}
		case "uuidv7, hash", "uuidv4, range":
			if top > 0.125+0.02 {
				t.Errorf("explain, %s: a shard gets %.3f of create_order's writes, want about 1/8", v.Name, top)
			}
		}
	}
	s.wantDiagnosis("uuidv7, range", "monotonic_key", "create_order")
	s.wantDiagnosis("uuidv7, hash", "", "")

	s.wantClaims(8)
}
