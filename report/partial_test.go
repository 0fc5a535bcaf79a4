package report

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestInterruptedSeriesAndClaims: a run stopped early (Model.Stop, as SIGINT stops one)
// writes series rows only for the windows it simulated, in CSV and Parquet alike (they had
// rows of offered = 0 up to the end of the duration), and its claims say that their
// verdicts are partial: in summary.json, the text and report.md.
func TestInterruptedSeriesAndClaims(t *testing.T) {
	sc, err := scenarios.Load("../testdata/detail.toml", scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := sc.Variants[0]
	m := v.Model()
	m.Stop = func() bool { return true } // at the first poll, seconds in
	r := sim.Run(m)
	if !r.Partial || r.Elapsed >= r.Duration-r.Window {
		t.Fatalf("partial %v at %v of %v: want a run stopped in its first windows", r.Partial, r.Elapsed, r.Duration)
	}
	covered := int((r.Elapsed + r.Window - 1) / r.Window)
	msc, runs := describeScenario(sc), []Run{{Variant: describeVariant(v), Result: r}}
	sum := Summarize(msc, runs)
	dir := t.TempDir()
	if _, err := WriteFilesAs(dir, msc, runs, sum, nil, SeriesBoth); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"streams", "shards", "nodes", "skew"} {
		b, _ := os.ReadFile(filepath.Join(dir, name+".csv"))
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || len(recs) < 2 {
			t.Fatalf("%s.csv: %v, %d lines", name, err, len(recs))
		}
		col := -1
		for i, h := range recs[0] {
			if h == "t_s" {
				col = i
			}
		}
		wins := map[string]bool{}
		for _, rec := range recs[1:] {
			ts, _ := strconv.ParseFloat(rec[col], 64)
			if ts >= r.Elapsed.Seconds() {
				t.Errorf("%s.csv: a row at t = %s s, after the run stopped at %.3f s: %v", name, rec[col], r.Elapsed.Seconds(), rec)
			}
			wins[rec[col]] = true
		}
		if len(wins) != covered {
			t.Errorf("%s.csv: %d windows, want the %d the run covered", name, len(wins), covered)
		}
		f, err := os.Open(filepath.Join(dir, name+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		if pf, err := parquet.OpenFile(f, st.Size()); err != nil || pf.NumRows() != int64(len(recs)-1) {
			t.Errorf("%s.parquet: %v, want as many rows as its CSV's %d", name, err, len(recs)-1)
		}
		f.Close()
	}

	measured := 0
	for _, c := range sum.Claims {
		if c.Agrees != nil {
			measured++
			if !c.Partial {
				t.Errorf("claim %q measured on an interrupted run is not marked partial", c.Text)
			}
		}
	}
	if measured == 0 {
		t.Fatalf("no claim measured in the first window: %+v", sum.Claims)
	}
	var text, md bytes.Buffer
	Text(&text, sum)
	ReportMarkdown(&md, msc, sum, nil)
	_, tail, _ := strings.Cut(text.String(), "\nclaims (")
	if n := strings.Count(tail, "   partial, holds  ") + strings.Count(tail, "   partial, does not hold  "); n != measured {
		t.Errorf("the text says %d verdicts are partial, want %d:\n%s", n, measured, tail)
	}
	if n := len(regexp.MustCompile(`\| (yes|no) \(partial run\) +\|`).FindAllString(md.String(), -1)); n != measured {
		t.Errorf("report.md marks %d verdicts partial, want %d", n, measured)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "summary.json")); !bytes.Contains(b, []byte(`"partial": true`)) {
		t.Error("summary.json marks nothing partial")
	}
}
