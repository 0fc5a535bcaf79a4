package metrics

import (
	"cmp"
	"slices"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// The detection figures (docs/detection.md): the most requested keys and most written
// partitions of each stream with their shares, the keys whose latency stands out, and the
// cache's hit ratio. Their JSON names are summary.json's.

// CacheSummary is a stream's use of the read cache. HitRatio is the share of the reads
// that reached the cache (offered less those the client's rate limit turned away) that it
// answered; BackendReads are the database reads its misses and refreshes caused.
type CacheSummary struct {
	Hits         int64   `json:"hits"`
	Stale        int64   `json:"stale"`
	Joined       int64   `json:"joined"`
	BackendReads int64   `json:"backend_reads"`
	HitRatio     float64 `json:"hit_ratio"`
}

// CacheOf returns stream i's cache figures in r, or nil when it did not use the cache.
func CacheOf(r *sim.Result, i int) *CacheSummary {
	n := CacheCountsOf(r, i)
	if n == nil || n.Hits+n.BackendReads == 0 {
		return nil
	}
	st := &r.Streams[i]
	c := &CacheSummary{Hits: n.Hits, Stale: n.Stale, Joined: n.Joined, BackendReads: n.BackendReads}
	if reads := st.Offered - st.Limited; reads > 0 {
		c.HitRatio = units.Round(float64(n.Hits)/float64(reads), 4)
	}
	return c
}

// HotKeys are a stream's most requested keys.
type HotKeys struct {
	Stream   string `json:"stream"`
	Requests int64  `json:"requests"` // the stream's offered requests
	// Counted is the requests the sketch counted, the denominator of the shares: a random
	// sample of the stream's requests when the engine samples (SampledRequests).
	Counted int64    `json:"counted"`
	Keys    []HotKey `json:"keys"`
}

// HotKey is one key's count, estimated by a Space-Saving sketch: Count overstates the
// counted requests for the key by at most Error. Share is Count over the counted requests.
type HotKey struct {
	Key    string   `json:"key"`
	Values []uint64 `json:"values"`
	Count  int64    `json:"count"`
	Share  float64  `json:"share"`
	Shard  int      `json:"shard"`
	Error  int64    `json:"error"`
}

// HotPartitions are a write stream's most written partitions and the number of distinct
// partitions it wrote (estimated; exact when small).
type HotPartitions struct {
	Stream            string         `json:"stream"`
	Writes            int64          `json:"writes"`  // the stream's offered writes
	Counted           int64          `json:"counted"` // the writes counted (see HotKeys)
	PartitionsWritten int64          `json:"partitions_written"`
	Partitions        []HotPartition `json:"partitions"`
	// CountedUntil, when set, is when the partitions stopped being counted: a migration
	// changed how the stream plans (sim.StreamResult.PartitionsStopped); Writes and
	// Counted are then the writes before it.
	CountedUntil string `json:"counted_until,omitempty"`
	// Stopped and StoppedAt are the same as a time from the start of the run: the reader
	// writes CountedUntil in its clock.
	Stopped   bool     `json:"-"`
	StoppedAt sim.Time `json:"-"`
}

// HotPartition is one partition's writes (overstated by at most Error).
type HotPartition struct {
	Partition string   `json:"partition"`
	Parts     []uint64 `json:"parts"`
	Writes    int64    `json:"writes"`
	Share     float64  `json:"share"`
	Shard     int      `json:"shard"`
	Error     int64    `json:"error"`
}

// LatencyOutlier is a key whose sampled requests were much slower than the typical key's:
// its mean latency is Ratio times the median of the keys' means (MedianMs), over keys with
// enough samples.
type LatencyOutlier struct {
	Stream   string   `json:"stream"`
	Key      string   `json:"key"`
	Values   []uint64 `json:"values"`
	Samples  int64    `json:"samples"`
	MeanMs   float64  `json:"mean_ms"`
	MedianMs float64  `json:"median_ms"`
	Ratio    float64  `json:"ratio"`
	Shard    int      `json:"shard"`
}

// counted returns the requests the stream's sketches counted: its sampled requests, or all
// of them when the engine does not say it sampled.
func counted(st *sim.StreamResult) int64 {
	if st.SampledRequests > 0 {
		return st.SampledRequests
	}
	return st.Offered
}

func HotKeysOf(r *sim.Result, v *Variant, topK int) []HotKeys {
	var out []HotKeys
	for i := range r.Streams {
		st := &r.Streams[i]
		if len(st.HotKeys) == 0 {
			continue
		}
		h := HotKeys{Stream: st.Name, Requests: st.Offered, Counted: counted(st)}
		for _, k := range st.HotKeys[:min(topK, len(st.HotKeys))] {
			h.Keys = append(h.Keys, HotKey{Key: v.KeyName(i, k.Values), Values: k.Values, Count: k.Count,
				Share: Share(k.Count, h.Counted), Shard: k.Shard, Error: k.Error})
		}
		out = append(out, h)
	}
	return out
}

func HotPartitionsOf(r *sim.Result, v *Variant, topK int) []HotPartitions {
	var out []HotPartitions
	for i := range r.Streams {
		st := &r.Streams[i]
		if len(st.HotPartitions) == 0 && st.PartitionsWritten == 0 {
			continue
		}
		h := HotPartitions{Stream: st.Name, Writes: st.Offered, Counted: counted(st), PartitionsWritten: st.PartitionsWritten, Partitions: []HotPartition{}}
		if st.PartitionsStopped {
			h.Writes, h.Counted = st.PartitionsOffered, st.PartitionsCounted
			h.Stopped, h.StoppedAt = true, st.PartitionsUntil
		}
		for _, k := range st.HotPartitions[:min(topK, len(st.HotPartitions))] {
			h.Partitions = append(h.Partitions, HotPartition{Partition: v.PartitionName(i, k.Values), Parts: k.Values,
				Writes: k.Count, Share: Share(k.Count, h.Counted), Shard: k.Shard, Error: k.Error})
		}
		out = append(out, h)
	}
	return out
}

// latencyOutliers finds, per stream, the keys whose sampled mean latency exceeds
// OutlierFactor times the median of the keys' means, among keys with at least
// OutlierMinSamples samples; the slowest topK per stream, slowest first.
func LatencyOutliersOf(r *sim.Result, v *Variant, c detect.Config) []LatencyOutlier {
	var out []LatencyOutlier
	for i := range r.Streams {
		st := &r.Streams[i]
		var means []float64
		var keys []sim.KeyLatency
		for _, k := range st.KeyLatencies {
			if k.Samples >= int64(c.OutlierMinSamples) {
				means = append(means, k.Mean.Millis())
				keys = append(keys, k)
			}
		}
		med := detect.Median(means)
		if med <= 0 {
			continue
		}
		var found []LatencyOutlier
		for _, k := range keys {
			if m := k.Mean.Millis(); m > c.OutlierFactor*med {
				found = append(found, LatencyOutlier{Stream: st.Name, Key: v.KeyName(i, k.Values), Values: k.Values,
					Samples: k.Samples, MeanMs: units.Round(m, 3), MedianMs: units.Round(med, 3), Ratio: units.Round(m/med, 2), Shard: k.Shard})
			}
		}
		slices.SortStableFunc(found, func(a, b LatencyOutlier) int {
			if c := cmp.Compare(b.MeanMs, a.MeanMs); c != 0 {
				return c
			}
			return cmp.Compare(a.Key, b.Key)
		})
		out = append(out, found[:min(c.TopK, len(found))]...)
	}
	return out
}

// Scaled estimates the requests behind a sketch count: n of counted, scaled up to all.
func Scaled(n, counted, all int64) int64 {
	if counted <= 0 || counted >= all {
		return n
	}
	return int64(float64(n)*float64(all)/float64(counted) + 0.5)
}
