// Package mechtest is what the tests of every mechanism under mechanisms/ share: their keys
// resolved from scenario text (Resolve), the checks every engine side passes (Conserve,
// NoAllocs), what the diagnosis rules find in given figures (Diagnose, DiagnoseRun), and the transcript
// of a mechanism's story (Transcripts, Figures): scenario text in, the figures out,
// compared byte for byte (docs/architecture.md, "Where a new thing goes").
package mechtest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// update rewrites each transcript's figures from the run (go test -update).
var update = flag.Bool("update", false, "rewrite the transcripts' figures under testdata")

// Minimal is the smallest valid scenario as a file, for the mechanisms' key tests: their
// keys are declared to the decoder, so they are given as text.
const Minimal = `name = "min"
duration = "10s"
[cluster]
nodes = 2
[table.fields.id]
gen = "sequence"
[keyspace]
shards = 4
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 10
cost = "1ms"
`

// Resolve decodes Minimal with extra appended (it may open a table Minimal leaves
// implicit: "[table]"), resolves it and returns the resolved form and every problem,
// decoding problems first, as "KEY: MESSAGE". Only the keys of the mechanisms the test
// binary imports are declared.
func Resolve(t testing.TB, extra string) (*scenario.Resolved, []string) {
	t.Helper()
	return ResolveFile(t, Minimal+extra)
}

// ResolveFile is Resolve of a whole scenario's text, for a test that changes what Minimal
// says (its [keyspace]'s scheme, say): src is often Minimal with a line replaced.
func ResolveFile(t testing.TB, src string) (*scenario.Resolved, []string) {
	t.Helper()
	doc, err := tomlx.Parse("x.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var f scenario.File
	var probs []string
	if err := doc.Decode(doc.Root, "", &f); err != nil {
		for _, e := range err.(tomlx.Errors) {
			probs = append(probs, e.Key+": "+e.Msg)
		}
	}
	s, fe := scenario.Resolve(&f)
	for _, p := range fe {
		probs = append(probs, p.Error())
	}
	return s, probs
}

// Conserve checks that every request issued after the warmup has exactly one outcome, once
// the run has drained (it must not have stopped early).
func Conserve(t testing.TB, r *sim.Result) {
	t.Helper()
	if r.Saturated || r.Partial {
		t.Fatalf("run stopped early (saturated %v at %v, partial %v): nothing to conserve", r.Saturated, r.SaturatedAt, r.Partial)
	}
	for i := range r.Streams {
		s := &r.Streams[i]
		if sum := s.Completed + s.Rejected + s.TimedOut + s.Limited + s.Failed.Sum(); sum != s.Offered {
			t.Errorf("stream %s: completed %d + rejected %d + timed out %d + limited %d + by registered cause %v = %d, want offered %d",
				s.Name, s.Completed, s.Rejected, s.TimedOut, s.Limited, s.Failed, sum, s.Offered)
		}
	}
}

// NoAllocs checks that m's event loop allocates nothing in steady state: 10,000 events,
// 20 times, after 200,000 that let its pools, queues and heap reach their size.
func NoAllocs(t testing.TB, m *sim.Model) {
	t.Helper()
	allocs, ok := sim.SteadyAllocs(m, 200_000, 10_000, 20)
	if !ok {
		t.Fatal("model ran out of events")
	}
	if allocs != 0 {
		t.Errorf("%v allocations per 10,000 events in steady state, want 0", allocs)
	}
}

// Transcripts runs each testdata/*.txtar of the test's package: story gets its file
// "scenario.toml" (named by the archive's path) and returns the figures, which must equal
// its file "figures" byte for byte; with -update the archive's figures are rewritten. The
// archive's comment says what the story shows.
func Transcripts(t *testing.T, story func(file string, src []byte) (string, error)) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcript under testdata (%v)", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src, want := section(a, "scenario.toml"), section(a, "figures")
			if src == nil {
				t.Fatalf("%s: no scenario.toml", file)
			}
			got, err := story(file, src)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if *update {
				setSection(a, "figures", []byte(got))
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal([]byte(got), want) {
				t.Errorf("%s: the figures differ from the transcript (go test -update rewrites it)\ngot:\n%swant:\n%s", file, got, want)
			}
		})
	}
}

func section(a *txtar.Archive, name string) []byte {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

func setSection(a *txtar.Archive, name string, data []byte) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: data})
}

// Figures writes what a transcript shows of one run, under the variant's name: whether it
// stopped early, and per stream its requests offered and completed, its latency's p50 and
// p99, and each mechanism's waits (asked, waited, their share, mean, p99 and longest), as
// metrics derives them for every reader.
func Figures(variant string, r *sim.Result) string {
	m := metrics.Of(r)
	var b strings.Builder
	fmt.Fprintf(&b, "variant %s", variant)
	if m.Saturated {
		fmt.Fprintf(&b, ": saturated at %v", m.SaturatedAt)
	}
	b.WriteString("\n")
	for _, st := range m.Streams {
		fmt.Fprintf(&b, "  %s: offered %d, completed %d, p50 %s, p99 %s\n", st.Name, st.Offered, st.Completed, ms(st.Latency.P50), ms(st.Latency.P99))
		for _, w := range st.Waits {
			fmt.Fprintf(&b, "    %s: %d %s asked, %d waited (%.3f), mean %s, p99 %s, max %s\n", w.Name, w.Asked, w.Of, w.Queued, w.Share, ms(w.Mean), ms(w.P99), ms(w.Max))
		}
	}
	return b.String()
}

// ms writes a figure in milliseconds, "-" when it is absent.
func ms(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f ms", *v)
}

// Diagnose applies every registered diagnosis rule (diagnose.Of) to a variant of one shard
// and one window, idle, whose streams' figures are streams: what a mechanism's rule finds
// in the figures its waits give, with no other rule's finding beside it.
func Diagnose(streams ...metrics.Stream) []diagnose.Diagnosis {
	return DiagnoseRun(&sim.Result{Window: sim.Minute, Windows: 1, Shards: make([]sim.ShardResult, 1)},
		&metrics.Run{PeakLoads: []float64{0}, Streams: streams}, nil)
}

// DiagnoseRun applies every registered diagnosis rule (diagnose.Of) to a variant whose
// result is r, figures run (its shards' loads in the busiest window, run.PeakLoads, one
// for each of r.Shards) and hot keys hot, of a scenario that starts at midnight with no
// warmup: what a mechanism's rule finds in figures of more than the streams' (an index's,
// the splits'), with the other rules' findings beside it (hot_shard_many_keys, last, for a
// hot shard no rule explains, when hot is given).
func DiagnoseRun(r *sim.Result, run *metrics.Run, hot []metrics.HotKeys) []diagnose.Diagnosis {
	return diagnose.Of(&diagnose.Case{Scenario: &metrics.Scenario{}, Variant: &metrics.Variant{}, Result: r, Run: run, HotKeys: hot})
}

// OneFieldKey is the key most of the mechanisms' test models route by: one part, field 0
// as it is.
var OneFieldKey = &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}

// Steady is an arrival schedule of one rate, r requests a second, from the start to the
// end of the run.
func Steady(r float64) workload.Schedule { return workload.Schedule{{At: 0, Rate: r}} }
