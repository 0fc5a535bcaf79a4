package trace_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/trace"
)

// writeLog writes a generated log into dir and returns its text.
func writeLog(t *testing.T, dir, name string, g trace.Synthetic) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := g.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func analyzeBytes(t *testing.T, data []byte, opt trace.Options, cfg trace.Config) *trace.Analysis {
	t.Helper()
	rd, err := trace.NewReader(bytes.NewReader(data), opt)
	if err != nil {
		t.Fatal(err)
	}
	a, err := trace.Analyze(rd, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

const replayScenario = `name = "replay"
duration = "60s"
[cluster]
nodes = 4
cores = 4
[table.fields]
ns   = { gen = "uuid" }
kind = { gen = "uuid" }
id   = { gen = "uuid" }
[keyspace]
scheme = %q
shards = 8
key    = ["id"]
[[streams]]
name  = "log"
cost  = "0.1ms"
trace = { path = "log.txt", format = "twitter", key_fields = { delimiter = ":", names = ["ns", "kind", "id"] } }
`

// TestReplayCountsAndHottestShard replays a generated log of 20,000 lines (seed 5, Zipf
// s = 1.1 over 3,000 ids, 70% reads) under hash and range sharding on the id: every line
// is issued once, as the request of its operation; each shard serves exactly the requests
// analyze's routing of the log through the same design predicts; and the hottest shard
// carries at least the most frequent key's share (all of that key's requests go to one
// shard).
func TestReplayCountsAndHottestShard(t *testing.T) {
	dir := t.TempDir()
	g := trace.Synthetic{Format: trace.Twitter, Lines: 20_000, Rate: 500, Keys: 3000, S: 1.1, Reads: 0.7, Seed: 5}
	data := writeLog(t, dir, "log.txt", g)
	opt := trace.Options{Format: trace.Twitter, Delimiter: ":", Names: []string{"ns", "kind", "id"}}
	for _, scheme := range []string{"hash", "range"} {
		src := fmt.Sprintf(replayScenario, scheme)
		sc, err := scenarios.LoadBytes(filepath.Join(dir, "replay.toml"), []byte(src), scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := sim.Run(sc.Variants[0].Model())

		// What analyze predicts for the same design.
		f := compile.AnalysisFile(opt.Names, []string{"id"}, scheme, 8, 0)
		s, probs := scenario.Resolve(&f)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		d := compile.TraceDesign(s, opt.Names, nil, nil)
		if scheme == "range" {
			rd, _ := trace.NewReader(bytes.NewReader(data), opt)
			sample, times, err := trace.Sample(rd, d, 10_000)
			if err != nil {
				t.Fatal(err)
			}
			d = compile.TraceDesign(s, opt.Names, sample, times)
		}
		a := analyzeBytes(t, data, opt, trace.Config{Design: d})

		if got := res.Streams[0].Offered; got != a.Reads {
			t.Errorf("%s: %d reads replayed, the log has %d", scheme, got, a.Reads)
		}
		if got := res.Streams[1].Offered; got != a.Writes {
			t.Errorf("%s: %d writes replayed, the log has %d", scheme, got, a.Writes)
		}
		if a.Reads+a.Writes != int64(g.Lines) {
			t.Errorf("%s: %d + %d records from %d lines", scheme, a.Reads, a.Writes, g.Lines)
		}
		var total, hottest int64
		for i, sh := range res.Shards {
			total += sh.Ops
			hottest = max(hottest, sh.Ops)
			want := math.Round(a.Design.Shards[i].WriteShare*float64(a.Writes) + a.Design.Shards[i].ReadShare*float64(a.Reads))
			if float64(sh.Ops) != want {
				t.Errorf("%s: shard %d served %d requests, analyze routes %v to it", scheme, i, sh.Ops, want)
			}
		}
		share := float64(hottest) / float64(total)
		top := a.Keys.Top[0].Share
		if share < top {
			t.Errorf("%s: hottest shard has %.3f of the requests, less than the top key's %.3f", scheme, share, top)
		}
		if math.Abs(share-a.Design.HottestShare) > 1e-9 {
			t.Errorf("%s: hottest shard share %.4f, analyze says %.4f", scheme, share, a.Design.HottestShare)
		}
		t.Logf("%s: hottest shard %.3f, top key %.3f", scheme, share, top)
	}
}

// TestFitThenRun fits a scenario to a generated log of 40,000 lines (seed 21) whose rate
// ramps from 500/s to 1,500/s, 70% reads, ids Zipf with s = 1.0 over 20,000, and runs
// it: the run issues the log's reads and writes within 5% (the schedule's integral against
// the log's count), in each quarter of the run too, and 200,000 draws (seed 1) of its key
// field give back the log's fitted exponent within 0.05 (the same estimator, FitZipf).
// The log is read twice: its keys whole (one field, key) and split as ns:kind:id (the
// id, which alone tells the keys apart, is the Zipf field; its exponent is the whole
// key's, since each id has one namespace). The comment maps the log's most frequent key
// to the value the run draws most.
func TestFitThenRun(t *testing.T) {
	dir := t.TempDir()
	g := trace.Synthetic{Format: trace.Twitter, Lines: 40_000, Rate: 500, RampTo: 1500, Keys: 20_000, S: 1.0, Reads: 0.7, Seed: 21}
	data := writeLog(t, dir, "ramp.log", g)
	for _, reading := range []struct {
		field string
		opt   trace.Options
	}{{"key", trace.Options{Format: trace.Twitter}}, {"id", trace.Options{Format: trace.Twitter, Delimiter: ":", Names: []string{"ns", "kind", "id"}}}} {
		a := analyzeBytes(t, data, reading.opt, trace.Config{Parts: true})
		if math.Abs(a.Keys.ZipfS-g.S) > 0.05 {
			t.Errorf("the log's fitted exponent %.3f, generated with %.2f", a.Keys.ZipfS, g.S)
		}
		fit := trace.Fit(a, trace.FitOptions{Name: "fit-ramp", Source: "ramp.log"})
		src := fit.TOML
		if !slices.Equal(fit.Key, []string{reading.field}) {
			t.Errorf("%s: the fitted key is %v", reading.field, fit.Key)
		}
		sc, err := scenarios.LoadBytes(filepath.Join(dir, "fit.toml"), src, scenarios.Options{})
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		m := sc.Variants[0].Model()
		res := sim.Run(m)
		check := func(what string, got, want float64) {
			if math.Abs(got-want) > 0.05*want {
				t.Errorf("%s: %s: the fitted run issues %.0f, the log has %.0f (more than 5%% apart)", reading.field, what, got, want)
			}
		}
		check("reads", float64(res.Streams[0].Offered), float64(a.Reads))
		check("writes", float64(res.Streams[1].Offered), float64(a.Writes))
		// Per quarter of the run: the log's records against the run's requests by window.
		q := a.DurationS / 4
		var logQ, runQ [4]float64
		for _, p := range a.Rate {
			logQ[min(int(p.TS/q), 3)] += p.PerS * a.RateWindow
		}
		for w := 0; w < res.Windows; w++ {
			at := float64(w) * float64(res.Window) / 1e9
			for _, st := range res.Streams {
				runQ[min(int(at/q), 3)] += float64(st.Win[w].Completed + st.Win[w].Errors)
			}
		}
		for i := range logQ {
			check(fmt.Sprintf("quarter %d", i+1), runQ[i], logQ[i])
		}
		// The key field's popularity.
		fi := slices.Index(sc.Variants[0].Spec.FieldNames, reading.field)
		gen := m.Streams[0].Fields[fi]
		counts := map[uint64]int64{}
		r := newRand()
		for i := 0; i < 200_000; i++ {
			counts[gen.Next(r, 0)]++
		}
		var top []detect.Counter
		for id, c := range counts {
			top = append(top, detect.Counter{ID: id, Count: c})
		}
		sortCounters(top)
		first := a.Keys.Top[0].Key
		if p := a.Keys.Parts; len(p) > 1 {
			first = p[len(p)-1].Top[0].Key
		}
		want := fmt.Sprintf("#   %s = %d  %q", reading.field, top[0].ID, first)
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("the fitted scenario does not map its most drawn value to the log's first: no line %q in\n%s", want, src)
		}
		s, ranks, _ := trace.FitZipf(top)
		if math.Abs(s-a.Keys.ZipfS) > 0.05 {
			t.Errorf("%s: the fitted scenario's keys have exponent %.3f (%d ranks), the log's %.3f", reading.field, s, ranks, a.Keys.ZipfS)
		}
		t.Logf("%s: log s=%.3f, run s=%.3f; reads %d/%d writes %d/%d; quarters log %v run %v", reading.field, a.Keys.ZipfS, s, res.Streams[0].Offered, a.Reads, res.Streams[1].Offered, a.Writes, logQ, runQ)
	}
}

// TestFitKeepsKeyParts fits a scenario to a generated csv log of 3,000 lines (seed 11,
// the parameters of testdata/traces/access.csv: auto-increment ids written at 50/s, ns =
// id mod 4) read as ns:kind:id. Each part becomes a field: the id, monotonic in the log,
// a sequence and the key alone (it has as many values as whole keys); ns and kind, of few
// values, categorical. Run as fitted (hash over 16 shards), the hottest shard serves at
// most 15% of the requests (even: 6.25%); with scheme = "range" (history splits) the last
// shard serves at least 95% of them: the log's append hot spot. Read without parts, the
// same log's keys are too rare for a Zipf fit, which the notes say. The description
// counts records with thousands separators.
func TestFitKeepsKeyParts(t *testing.T) {
	g := trace.Synthetic{Format: trace.CSV, Lines: 3000, Rate: 50, Keys: 500, S: 1.1, Reads: 0.7, Sequential: true, Seed: 11}
	var buf bytes.Buffer
	if err := g.Write(&buf); err != nil {
		t.Fatal(err)
	}
	a := analyzeBytes(t, buf.Bytes(), trace.Options{Format: trace.CSV, Delimiter: ":", Names: []string{"ns", "kind", "id"}}, trace.Config{Parts: true})
	fit := trace.Fit(a, trace.FitOptions{Name: "fit-access", Source: "access.csv"})
	src := string(fit.TOML)
	for _, want := range []string{`: 3,000 records over 57.7 s, 68.7% reads; `, `id = { gen = "sequence" }`, `ns = { gen = "categorical", values = [`, `kind = { gen = "categorical", values = ["u"]`, `key    = ["id"]`} {
		if !strings.Contains(src, want) {
			t.Errorf("no %q in the fitted scenario:\n%s", want, src)
		}
	}
	hottest := func(sets ...string) float64 {
		sc, err := scenarios.LoadBytes("fit.toml", fit.TOML, scenarios.Options{Sets: sets})
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		res := sim.Run(sc.Variants[0].Model())
		var total, top int64
		for _, sh := range res.Shards {
			total += sh.Ops
			top = max(top, sh.Ops)
		}
		return float64(top) / float64(max(total, 1))
	}
	if h := hottest(); h > 0.15 {
		t.Errorf("hash: the hottest shard serves %.1f%% of the requests, want at most 15%%", 100*h)
	}
	if h := hottest(`keyspace.scheme="range"`); h < 0.95 {
		t.Errorf("range: the hottest shard serves %.1f%% of the requests, want at least 95%% (the append hot spot)", 100*h)
	}
	whole := analyzeBytes(t, buf.Bytes(), trace.Options{Format: trace.CSV}, trace.Config{Parts: true})
	notes := strings.Join(trace.Fit(whole, trace.FitOptions{Name: "fit-access"}).Notes, "\n")
	if !strings.Contains(notes, "part key: fewer than 3 values have 30 records or more, so no Zipf law can be fitted") {
		t.Errorf("notes of a log without parts: %q, want the key's Zipf fit refused", notes)
	}
}

// TestSourceAllocatesNothingPerRecord: once warm, replaying a record (its arrival and its
// key fields, as the engine asks for them) allocates nothing.
func TestSourceAllocatesNothingPerRecord(t *testing.T) {
	dir := t.TempDir()
	writeLog(t, dir, "log.txt", trace.Synthetic{Format: trace.Twitter, Lines: 20_000, Rate: 1000, Keys: 1000, S: 1, Reads: 0.5, Seed: 9})
	opt := trace.Options{Format: trace.Twitter, Delimiter: ":", Names: []string{"ns", "kind", "id"}}
	src := trace.NewSource(os.DirFS(dir), "log.txt", opt, trace.Read, 1, 3, false)
	id, ns := src.Field(2, true), src.Field(0, false)
	r := newRand()
	at := src.Next(r, 0)
	step := func() {
		id.Next(r, at)
		ns.Next(r, at)
		at = src.Next(r, at)
	}
	for i := 0; i < 2000; i++ {
		step()
	}
	if n := testing.AllocsPerRun(1000, step); n != 0 {
		t.Errorf("%.2f allocations per replayed record, want 0", n)
	}
	if src.Err() != nil {
		t.Fatal(src.Err())
	}
}

// TestFitWritesLoadableValues: a part of two values, one holding a control character
// that a TOML string could not hold as Go quotes it, is not written out as categorical
// values; the fitted scenario loads.
func TestFitWritesLoadableValues(t *testing.T) {
	a := &trace.Analysis{Records: 20, Reads: 10, Writes: 10, DurationS: 10,
		Keys: trace.Keys{Distinct: 2, DistinctExact: true, Parts: []trace.PartKeys{{Part: "ns", Distinct: 2, DistinctExact: true,
			Top: []trace.TopKey{{Key: "a\x01b", Count: 10, Share: 0.5}, {Key: "c", Count: 10, Share: 0.5}}}}},
		Rate: []trace.RatePoint{{TS: 0, PerS: 2}}, RateWindow: 1}
	fit := trace.Fit(a, trace.FitOptions{Name: "fit-ctl", Source: "ctl.log"})
	if _, err := scenarios.LoadBytes("fit.toml", fit.TOML, scenarios.Options{}); err != nil {
		t.Fatalf("%v\n%s", err, fit.TOML)
	}
	if strings.Contains(string(fit.TOML), "categorical") {
		t.Errorf("a value with a control character written as categorical:\n%s", fit.TOML)
	}
}
