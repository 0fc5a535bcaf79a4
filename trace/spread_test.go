package trace_test

import (
	"bytes"
	"fmt"
	"regexp"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/trace"
)

// rangeDesign routes a log's ids through a range scheme over shards shards with salt
// random salt buckets, split as analyze and a replay split it (trace.Sample: the keys of
// the log's first records).
func rangeDesign(t *testing.T, data []byte, opt trace.Options, shards, salt int) *trace.Design {
	t.Helper()
	f := compile.AnalysisFile(opt.Names, []string{"id"}, "range", shards, salt)
	s, probs := scenario.Resolve(&f)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	d := compile.TraceDesign(s, opt.Names, nil, nil)
	rd, err := trace.NewReader(bytes.NewReader(data), opt)
	if err != nil {
		t.Fatal(err)
	}
	sample, times, err := trace.Sample(rd, d, compile.TraceSplitSample(shards))
	if err != nil {
		t.Fatal(err)
	}
	return compile.TraceDesign(s, opt.Names, sample, times)
}

// TestWindowSpreadOfMonotonicKey: a log of 40,000 lines (seed 9, 2,000 lines/s for 20 s,
// 30% reads of recent ids) writes auto-increment ids, range-sharded on the id over 8
// shards. The splits are cut from the first tenth of the log (trace.SplitPart), so every
// later write lands past the last split:
//
//   - salt 1: each window's writes go to one shard. The write-weighted mean over windows
//     of the hottest shard's share is (1 - p) + p*h0 with p = 0.1 the first tenth's
//     writes and h0 >= 1/8 their spread, so at least 0.9125; the test asks >= 0.9. The
//     whole log's hottest write share is over 0.85 too.
//   - salt 4: a write picks one of 4 buckets uniformly, and each bucket's new ids land on
//     its own last range, so each window's hottest shard takes the largest of 4 multinomial
//     shares of its k ~ 1,400 writes: 1/4 + about 2 standard errors, 2*sqrt(1/4*3/4/1400)
//     = 0.023. The test asks 0.25 <= mean <= 0.29 and the busiest window <= 0.30 (in the
//     first tenth the hottest shard takes at most 1/4 plus noise as well). A read of an id
//     visits all 4 buckets, so the mean fan-out is 0.7*1 + 0.3*4.
//
// The old analysis (splits cut from the whole log, shares over the whole log) gave salt 1's
// hottest shard 18% of the writes, against an even 12.5%, and so saw little for salting
// to fix.
func TestWindowSpreadOfMonotonicKey(t *testing.T) {
	g := trace.Synthetic{Format: trace.CSV, Lines: 40_000, Rate: 2000, Keys: 100_000, S: 0.9, Reads: 0.3, Sequential: true, Seed: 9}
	var buf bytes.Buffer
	if err := g.Write(&buf); err != nil {
		t.Fatal(err)
	}
	opt := trace.Options{Format: trace.CSV, Delimiter: ":", Names: []string{"ns", "kind", "id"}}
	for _, salt := range []int{1, 4} {
		a := analyzeBytes(t, buf.Bytes(), opt, trace.Config{Design: rangeDesign(t, buf.Bytes(), opt, 8, salt)})
		d := a.Design
		ws := d.WriteSpread
		var top float64
		for _, sh := range d.Shards {
			top = max(top, sh.WriteShare)
		}
		t.Logf("salt %d: windows of %g s, busiest %.4f (shard %d), mean %.4f, whole log %.4f, fan-out %.3f",
			salt, ws.WindowS, ws.BusiestShare, ws.BusiestShard, ws.MeanHottestShare, top, d.MeanFanout)
		if ws.WindowS != 1 || ws.Windows != 20 {
			t.Errorf("salt %d: %d windows of %g s, want 20 of 1 s", salt, ws.Windows, ws.WindowS)
		}
		switch salt {
		case 1:
			if ws.MeanHottestShare < 0.9 || ws.BusiestShare < 0.9 {
				t.Errorf("salt 1: each window's hottest shard takes %.4f of the writes on the mean, %.4f in the busiest; want >= 0.9", ws.MeanHottestShare, ws.BusiestShare)
			}
			if top < 0.85 {
				t.Errorf("salt 1: the whole log's hottest write share is %.4f, want > 0.85 (splits from the log's first records)", top)
			}
			if d.MeanFanout != 1 {
				t.Errorf("salt 1: mean fan-out %.3f, want 1", d.MeanFanout)
			}
		case 4:
			if ws.MeanHottestShare < 0.25 || ws.MeanHottestShare > 0.29 || ws.BusiestShare > 0.30 {
				t.Errorf("salt 4: each window's hottest shard takes %.4f of the writes on the mean, %.4f in the busiest; want 1/4 + at most 0.04 (0.05 in the busiest)", ws.MeanHottestShare, ws.BusiestShare)
			}
			want := (float64(a.Writes) + 4*float64(a.Reads)) / float64(a.Records)
			if d.MeanFanout < want-1e-9 || d.MeanFanout > want+1e-9 {
				t.Errorf("salt 4: mean fan-out %.4f, want %.4f (a read visits the 4 buckets)", d.MeanFanout, want)
			}
		}
	}
}

// TestPartialLastWindow: a log of 500 records a second for 3 s and one record 0.1 ms past
// 3 s. The last window holds that one record: read as a rate over its covered part (at
// least a millisecond) it was 1,000/s, twice the log's rate, and fit ended its schedule
// on it (and its run lasted 4 s). It is now left out, as is any last window the log
// covers less than half of, and the fitted run lasts 3 s; a last window covered more
// than half (records until 3.6 s) is kept, its rate over the part covered.
func TestPartialLastWindow(t *testing.T) {
	logOf := func(extra []float64) []byte {
		var b bytes.Buffer
		b.WriteString("ts,op,key\n")
		for i := range 1500 {
			fmtRow(&b, float64(i)/500, i)
		}
		for i, ts := range extra {
			fmtRow(&b, ts, 1500+i)
		}
		return b.Bytes()
	}
	opt := trace.Options{Format: trace.CSV}
	a := analyzeBytes(t, logOf([]float64{3.0001}), opt, trace.Config{})
	if len(a.Rate) != 3 {
		t.Errorf("rate windows %v, want 3 (the one record past 3 s is no window)", a.Rate)
	}
	for _, p := range a.Rate {
		if p.PerS != 500 {
			t.Errorf("rate %v, want 500/s in every window", a.Rate)
			break
		}
	}
	fit := trace.Fit(a, trace.FitOptions{Name: "fit-partial"})
	rates := regexp.MustCompile(`rate = ([0-9.]+) }`).FindAllSubmatch(fit.TOML, -1)
	if len(rates) < 3 {
		t.Fatalf("fitted scenario without a schedule:\n%s", fit.TOML)
	}
	for _, m := range rates {
		if string(m[1]) != "500" {
			t.Errorf("fitted schedule has a point at %s/s, want 500/s at every point:\n%s", m[1], fit.TOML)
		}
	}
	// Nor does the fitted run last into that window: 3 s, not 4.
	if !bytes.Contains(fit.TOML, []byte(`duration    = "3s"`)) {
		t.Errorf("fitted scenario's duration, want 3s:\n%s", fit.TOML)
	}
	// Covered more than half: 300 records from 3.0 s to 3.598 s, 500/s over 0.598 s.
	var extra []float64
	for i := range 300 {
		extra = append(extra, 3+float64(i)/500)
	}
	a = analyzeBytes(t, logOf(extra), opt, trace.Config{})
	if n := len(a.Rate); n != 4 || a.Rate[3].PerS < 500 || a.Rate[3].PerS > 502 {
		t.Errorf("rate windows %v, want 4, the last at 300 / 0.598 s = 501.7/s", a.Rate)
	}
}

// fmtRow writes a write of key i at ts seconds.
func fmtRow(b *bytes.Buffer, ts float64, i int) {
	fmt.Fprintf(b, "%.6f,write,%d\n", ts, i)
}
