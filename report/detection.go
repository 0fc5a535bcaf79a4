package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
	"github.com/shardsim/shardsim/units"
)

// keyFormatter names keys and partitions in the scenario's own terms ("user_id=123",
// "(region_id=west, hour(ts)=08:00)"). A variant that cannot is shown with plain numbers.
type keyFormatter interface {
	FormatKey(stream int, values []uint64) string
	FormatStreamPartition(stream int, parts []uint64) string
}

func formatKey(v *spec.Variant, stream int, values []uint64) string {
	if f, ok := any(v).(keyFormatter); ok && v != nil {
		if s := f.FormatKey(stream, values); s != "" {
			return s
		}
	}
	return plainValues(values)
}

// formatPartition names a partition key that stream wrote.
func formatPartition(v *spec.Variant, stream int, parts []uint64) string {
	if f, ok := any(v).(keyFormatter); ok && v != nil {
		if s := f.FormatStreamPartition(stream, parts); s != "" && s != "()" {
			return s
		}
	}
	return plainValues(parts)
}

// plainValues shows field values as numbers: "123", or "(3, 17)" for several.
func plainValues(values []uint64) string {
	parts := make([]string, len(values))
	for i, x := range values {
		parts[i] = strconv.FormatUint(x, 10)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// detectOf returns the variant's [detect] settings (the defaults without a variant).
func detectOf(v *spec.Variant) spec.DetectConfig {
	if v == nil {
		return spec.DefaultDetect
	}
	return v.Detect()
}

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

// cacheOf returns the stream's cache figures, or nil when it did not use the cache.
func cacheOf(st *sim.StreamResult) *CacheSummary {
	if st.CacheHits+st.BackendReads == 0 {
		return nil
	}
	c := &CacheSummary{Hits: st.CacheHits, Stale: st.CacheStale, Joined: st.CacheJoined, BackendReads: st.BackendReads}
	if reads := st.Offered - st.Limited; reads > 0 {
		c.HitRatio = units.Round(float64(st.CacheHits)/float64(reads), 4)
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

// EventSummary is one change during the run: an operator action, a shard split or move.
type EventSummary struct {
	At      string  `json:"at"`
	AtS     float64 `json:"at_s"`
	Kind    string  `json:"kind"`
	Shard   *int    `json:"shard,omitempty"`
	Message string  `json:"message"`
}

// counted returns the requests the stream's sketches counted: its sampled requests, or all
// of them when the engine does not say it sampled.
func counted(st *sim.StreamResult) int64 {
	if st.SampledRequests > 0 {
		return st.SampledRequests
	}
	return st.Offered
}

// share returns n/of rounded to 0.01 percentage points, 0 when of is 0.
func share(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return units.Round(float64(n)/float64(of), 4)
}

func hotKeysOf(run Run, topK int) []HotKeys {
	var out []HotKeys
	for i := range run.Result.Streams {
		st := &run.Result.Streams[i]
		if len(st.HotKeys) == 0 {
			continue
		}
		h := HotKeys{Stream: st.Name, Requests: st.Offered, Counted: counted(st)}
		for _, k := range st.HotKeys[:min(topK, len(st.HotKeys))] {
			h.Keys = append(h.Keys, HotKey{Key: formatKey(run.Variant, i, k.Values), Values: k.Values, Count: k.Count,
				Share: share(k.Count, h.Counted), Shard: k.Shard, Error: k.Error})
		}
		out = append(out, h)
	}
	return out
}

func hotPartitionsOf(run Run, topK int) []HotPartitions {
	var out []HotPartitions
	for i := range run.Result.Streams {
		st := &run.Result.Streams[i]
		if len(st.HotPartitions) == 0 && st.PartitionsWritten == 0 {
			continue
		}
		h := HotPartitions{Stream: st.Name, Writes: st.Offered, Counted: counted(st), PartitionsWritten: st.PartitionsWritten, Partitions: []HotPartition{}}
		if st.PartitionsStopped {
			h.Writes, h.Counted = st.PartitionsOffered, st.PartitionsCounted
			h.CountedUntil = units.Clock(run.Variant.Spec.Start, st.PartitionsUntil, units.TimeOfDay)
		}
		for _, k := range st.HotPartitions[:min(topK, len(st.HotPartitions))] {
			h.Partitions = append(h.Partitions, HotPartition{Partition: formatPartition(run.Variant, i, k.Values), Parts: k.Values,
				Writes: k.Count, Share: share(k.Count, h.Counted), Shard: k.Shard, Error: k.Error})
		}
		out = append(out, h)
	}
	return out
}

// latencyOutliers finds, per stream, the keys whose sampled mean latency exceeds
// OutlierFactor times the median of the keys' means, among keys with at least
// OutlierMinSamples samples; the slowest topK per stream, slowest first.
func latencyOutliers(run Run, c spec.DetectConfig) []LatencyOutlier {
	var out []LatencyOutlier
	for i := range run.Result.Streams {
		st := &run.Result.Streams[i]
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
				found = append(found, LatencyOutlier{Stream: st.Name, Key: formatKey(run.Variant, i, k.Values), Values: k.Values,
					Samples: k.Samples, MeanMs: ms(m), MedianMs: ms(med), Ratio: units.Round(m/med, 2), Shard: k.Shard})
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

// eventText words one event of a run.
func eventText(e sim.Event) string {
	switch e.Kind {
	case sim.EventSplit:
		var why string
		switch e.Cause {
		case sim.SplitLoad:
			why = fmt.Sprintf("its load was %.0f%% in the window", 100*e.Value)
		case sim.SplitRows:
			why = fmt.Sprintf("it holds %.0f rows", e.Value)
		case sim.SplitThrottled:
			why = fmt.Sprintf("it was throttled %.0f windows running", e.Value)
		}
		return fmt.Sprintf("shard %d split (%s): shard %d takes the upper half of its keys", e.Shard, why, e.Child)
	case sim.EventMove:
		return fmt.Sprintf("shard %d moved to node %d", e.Shard, e.Node)
	}
	if e.Text != "" {
		return e.Text
	}
	return e.Kind.String()
}

func eventsOf(sc *spec.Scenario, r *sim.Result) []EventSummary {
	var out []EventSummary
	for _, e := range r.Events {
		es := EventSummary{At: units.Clock(sc.Start, e.At, units.TimeOfDay), AtS: units.Round(e.At.Seconds(), 6), Kind: e.Kind.String(), Message: eventText(e)}
		if e.Shard >= 0 {
			s := e.Shard
			es.Shard = &s
		}
		out = append(out, es)
	}
	return out
}
