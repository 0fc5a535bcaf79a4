package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/report"
	"github.com/shardsim/shardsim/units"
)

// detectionDoc checks docs/detection.md's figures and quoted diagnoses (black-friday's are
// TestBlackFridayTour's).
func detectionDoc(t *testing.T, runs *runCache) {
	doc, _ := filepath.Abs("../../docs/detection.md")
	figs, blocks := map[string]string{}, map[string]string{}
	cel, _ := runs.run(t, celebrityRun...)
	base := variantOf(t, cel, "hash(user_id), 16 shards")
	view := base.HotKeys[0]
	figs["det.cel.sampled"] = units.Count(view.Counted)
	figs["det.cel.requests"] = units.Count(view.Requests)
	cache := variantOf(t, cel, "cache, no single-flight")
	figs["det.cel.cache_share"] = pct(cache.HotKeys[0].Keys[0].Share)
	for _, hp := range base.HotPartitions {
		if hp.Stream == "post_comment" {
			figs["det.cel.comment_distinct"] = units.Count(hp.PartitionsWritten)
			figs["det.cel.comment_sampled"] = units.Count(hp.Counted)
		}
	}
	// Latency outliers: all on the celebrity's shard, their ratios, the median key.
	outs := base.LatencyOutliers
	if len(outs) == 0 {
		t.Fatal("celebrity: no latency outlier")
	}
	lo, hi, shards := outs[0].Ratio, outs[0].Ratio, map[int]bool{}
	for _, o := range outs {
		lo, hi = min(lo, o.Ratio), max(hi, o.Ratio)
		shards[o.Shard] = true
	}
	if len(shards) != 1 {
		t.Errorf("celebrity: outliers on shards %v, the doc says one shard", shards)
	}
	figs["det.cel.outliers"] = strconv.Itoa(len(outs))
	figs["det.cel.outlier_shard"] = strconv.Itoa(outs[0].Shard)
	figs["det.cel.outlier_ratios"] = fmt.Sprintf("%.1f to %.1f", lo, hi)
	figs["det.cel.median_key"] = fmt.Sprintf("%.3f ms", outs[0].MedianMs)
	figs["det.cel.celeb_samples"] = units.Count(outs[0].Samples)
	figs["det.cel.celeb_mean"] = fmt.Sprintf("%.2f ms", outs[0].MeanMs)
	blocks["det.hot-key"] = diagnosisOf(t, base, "hot_key", "").Message
	for _, d := range base.Diagnosis {
		if d.Kind == "hot_key" && strings.Contains(d.Message, "post_comment") {
			blocks["det.hot-key-writes"] = d.Message
		}
	}

	// Copies: the hot shards with no hot key, and where the sketch files the celebrity.
	copies := variantOf(t, cel, "hot-key copies (celebrity x 4)")
	figs["det.copies.celeb_shard"] = strconv.Itoa(copies.HotKeys[0].Keys[0].Shard)
	var many []string
	for _, d := range copies.Diagnosis {
		if d.Kind == "hot_shard_many_keys" {
			many = append(many, strings.TrimPrefix(d.Subject, "shard "))
		}
	}
	figs["det.copies.many"] = strings.Join(many, ", ")
	blocks["det.many-keys"] = diagnosisOf(t, copies, "hot_shard_many_keys", "shard 14").Message

	cc, _ := runs.run(t, countryCodesRun...)
	ccv := variantOf(t, cc, "country, hash")
	blocks["det.dominant"] = diagnosisOf(t, ccv, "dominant_tenant", "").Message
	blocks["det.low-cardinality"] = diagnosisOf(t, ccv, "low_cardinality", "").Message
	nt, _ := runs.run(t, noisyTenantRun...)
	blocks["det.dominant-noisy"] = diagnosisOf(t, variantOf(t, nt, "tenant_id, hash"), "dominant_tenant", "").Message
	own := diagnosisOf(t, variantOf(t, nt, "tenant_id, directory: own shard"), "dominant_tenant", "")
	figs["det.noisy.own_shard"] = strconv.Itoa(int(own.Evidence["shard"]))

	iot, _ := runs.run(t, iotSplitsRun...)
	blocks["det.monotonic-splits"] = diagnosisOf(t, &iot.Variants[0], "monotonic_key", "").Message
	top, _ := runs.run(t, topOfMinuteRun...)
	blocks["det.burst"] = diagnosisOf(t, variantOf(t, top, "synchronized flush"), "synchronized_burst", "").Message
	fs, _ := runs.run(t, flashSaleRun...)
	blocks["det.stampede"] = diagnosisOf(t, variantOf(t, fs, "cache, no single-flight"), "cache_stampede", "").Message
	sf := variantOf(t, fs, "cache with single-flight")
	var lat *report.Alert
	for i := range sf.Alerts {
		if sf.Alerts[i].Kind == "latency" {
			lat = &sf.Alerts[i]
			break
		}
	}
	if lat == nil {
		t.Fatal("flash-sale, cache with single-flight: no latency alert")
	}
	figs["det.fs.alert_at"] = lat.At
	figs["det.fs.alert_detection"] = lat.Detection
	sb, _ := runs.run(t, saltBucketsRun...)
	blocks["det.placement"] = diagnosisOf(t, &sb.Variants[0], "placement", "").Message
	gsi, _ := runs.run(t, gsiRun...)
	blocks["det.index"] = diagnosisOf(t, variantOf(t, gsi, "async index, limited"), "hot_index_partition", "index by_group_hour").Message

	docmark.Apply(t, &docmark.Parts{Owner: "det", Figs: figs, Blocks: blocks, Update: *update}, doc)
}
