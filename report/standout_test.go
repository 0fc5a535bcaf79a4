package report

import (
	"strings"
	"testing"
)

// A uniform key sampled 432 times (the review's counter2.toml, stream "other"): the
// sketch shows counts of 2 with an error of 1, which the table scaled up to "~140
// requests" each; they are chance, and the table lists none of them. A key with 40 of the
// same 432 sampled hits (9.3%) stands out.
func TestHotKeysSmallSampleNoise(t *testing.T) {
	v := &VariantSummary{HotKeys: []HotKeys{{Stream: "other", Requests: 30_175, Counted: 432,
		Keys: []HotKey{{Key: "counter_id=97294", Count: 2, Error: 1, Share: 0.0046}, {Key: "counter_id=41823", Count: 2, Error: 1, Share: 0.0046}}}}}
	text := func() string {
		var b strings.Builder
		for _, sec := range detailSections(v) {
			if sec.t != nil {
				sec.t.text(&b, "")
			}
			b.WriteString(strings.Join(sec.notes, "\n"))
		}
		return b.String()
	}
	if got := text(); strings.Contains(got, "97294") || !strings.Contains(got, "other: no key stands out") {
		t.Errorf("two chance hits of 432 listed:\n%s", got)
	}
	v.HotKeys[0].Keys[0] = HotKey{Key: "counter_id=7", Count: 40, Share: 0.0926}
	if got := text(); !strings.Contains(got, "counter_id=7") {
		t.Errorf("a key with 40 of 432 sampled hits not listed:\n%s", got)
	}
}

// Polish the review found: one partition is "1 distinct partition", and a run without
// warmup says so in report.md rather than "the first 0s are warmup".
func TestSingularAndNoWarmup(t *testing.T) {
	v := VariantSummary{Streams: []StreamSummary{{Name: "increment"}}, Shards: []ShardSummary{{ID: 0}},
		HotPartitions: []HotPartitions{{Stream: "increment", Writes: 1000, Counted: 100, PartitionsWritten: 1}}}
	var b strings.Builder
	for _, sec := range detailSections(&v) {
		b.WriteString(strings.Join(sec.notes, "\n"))
	}
	if got := b.String(); !strings.Contains(got, "increment: 1 distinct partition among 100 sampled writes") {
		t.Errorf("hot partitions note %q, want the singular", got)
	}
	b.Reset()
	ReportMarkdown(&b, nil, &Summary{Scenario: "x", DurationS: 60, Start: "12:00", Variants: []VariantSummary{v}}, nil)
	if got := b.String(); strings.Contains(got, "the first 0s") || !strings.Contains(got, "there is no warmup") {
		t.Errorf("report.md without warmup: %q", got[:min(len(got), 300)])
	}
}
