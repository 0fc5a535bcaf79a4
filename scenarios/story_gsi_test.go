package scenarios_test

import (
	"testing"

	"github.com/shardsim/shardsim/mechanisms/limits"
)

// gsi-write-sharding: the write-sharding article's pattern 3. The index doubles the
// writes, its key gathers the busy group's writes of the hour on one index partition,
// whose limit pushes back on the table's writes; a hashed bucket in the index's key
// spreads them again; without the index the dashboard reads 16 salt buckets.
func TestGSIWriteShardingStory(t *testing.T) {
	t.Parallel()
	s := runOtherStory(t, "gsi-write-sharding")
	const (
		limited   = "async index, limited"
		none      = "no index"
		async     = "async index, unlimited"
		sync      = "sync index, unlimited"
		bucketed  = "async index (group, hour, hash(device, 8)), limited"
		tableN    = 32
		indexName = "by_group_hour"
	)
	// Writes doubled: the same writes (the same seed and draws) put twice the rows on the
	// cluster with the index as without it, the table's row and the index's entry.
	_, plain := s.rows(none)
	for _, v := range []string{async, sync} {
		if _, total := s.rows(v); total != 2*plain {
			t.Errorf("%s: %d rows, want twice the %d without the index (table and index)", v, total, plain)
		}
	}
	// The hot index partition: the hottest shard is an index shard (an id past the table's),
	// and the diagnosis names the index.
	for _, v := range []string{limited, async, sync} {
		if hot, _ := s.hottest(v); hot < tableN {
			t.Errorf("%s: the hottest shard is the table's %d, want the index's", v, hot)
		}
		s.wantDiagnosis(v, "hot_index_partition", "index "+indexName)
	}
	// Push-back: a third of the table's writes fail throttled with the limited index; none
	// without a limit, nor once the bucket spreads the busy group under it.
	if w := s.stream(limited, "ingest"); w.Failed[limits.Throttled] < w.Offered/4 || w.Failed[limits.Throttled]+w.Completed != w.Offered {
		t.Errorf("%s: %d of %d writes throttled, %d completed; want over a quarter throttled, the rest completed", limited, w.Failed[limits.Throttled], w.Offered, w.Completed)
	}
	for _, v := range []string{none, async, sync, bucketed} {
		if w := s.stream(v, "ingest"); w.Completed != w.Offered {
			t.Errorf("%s: %d of %d writes completed, want all", v, w.Completed, w.Offered)
		}
	}
	s.wantDiagnosis(none, "", "")
	s.wantDiagnosis(bucketed, "", "")
	// The reads: 16 salt buckets without the index, 2 hourly partitions through it, 16
	// (2 hours x 8 buckets) through the bucketed index; and the sync index's write waits
	// for the slower copy.
	for _, c := range []struct {
		v     string
		parts float64
	}{{none, 16}, {async, 2}, {bucketed, 16}} {
		if _, parts := s.fanout(c.v, "group_hour"); parts != c.parts {
			t.Errorf("%s: the dashboard reads %.2f partitions, want %.0f", c.v, parts, c.parts)
		}
	}
	if ps, pa := s.p99(sync, "ingest"), s.p99(async, "ingest"); ps <= pa {
		t.Errorf("write p99 %.2f ms with a sync index, %.2f ms with an async one: want the sync one slower", ps, pa)
	}
	s.wantClaims(5)
}
