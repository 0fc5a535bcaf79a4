package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// TestDetailAndRetries reads testdata/detail.toml (a queue that builds within one window,
// kept in 5 s windows from 1:00 to 3:00, and reads that time out and retry, named
// "duplicate lookups") through every reader: streams-detail.csv holds the same completions
// as streams.csv over the range, window by window; each latency alert gives the end of
// the first fine window whose p99 passed its threshold, inside or before its own window;
// the HTML blob's fine p99s are the CSV's; the retries are named by their label, with when
// they were sent, in the summary, the text report and the timed-out alert.
func TestDetailAndRetries(t *testing.T) {
	sc, runs := runAll(t, "../testdata/detail.toml")
	r := runs[0].Result
	if r.Detail.FineWindows() != 24 || r.Detail.Window != 5*sim.Second {
		t.Fatalf("detail %+v: want 24 windows of 5 s", r.Detail)
	}
	var fine bytes.Buffer
	if err := streamsDetailCSV(&fine, sc, runs); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&fine).ReadAll()
	if err != nil || len(recs) != 1+24*2 {
		t.Fatalf("streams-detail.csv: %v, %d rows; want a header and 48 rows", err, len(recs))
	}
	var sums [2][3]int64 // stream, window
	p99 := map[string]string{}
	for _, rec := range recs[1:] {
		ts, _ := strconv.ParseFloat(rec[2], 64)
		n, _ := strconv.ParseInt(rec[4], 10, 64)
		i := map[string]int{"put": 0, "get": 1}[rec[3]]
		sums[i][int(ts)/60] += n
		p99[rec[1]+" "+rec[3]] = rec[5]
	}
	for i := range 2 {
		for w := 1; w < 3; w++ {
			if got, want := sums[i][w], r.Streams[i].Win[w].Completed; got != want {
				t.Errorf("%s, window %d: the fine windows count %d completions, the window %d", r.Streams[i].Name, w, got, want)
			}
		}
	}
	sum := Summarize(sc, runs)
	v := &sum.Variants[0]
	crossings := 0
	for _, a := range v.Alerts {
		if a.Kind != "latency" {
			continue
		}
		crossings++
		if a.FineAtS == nil || *a.FineAtS > a.AtS || !strings.Contains(a.Message, "in 5s windows, at "+a.FineAt+")") {
			t.Errorf("alert %q at %s: fine time %q, want one at or before the alert, named in its message", a.Message, a.At, a.FineAt)
			continue
		}
		// The fine window that ends at FineAt passed the threshold; none before it did.
		ms, _ := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(strings.SplitN(a.Message, "crossed ", 2)[1])[0], "ms"), 64)
		if strings.HasSuffix(strings.Fields(strings.SplitN(a.Message, "crossed ", 2)[1])[0], "1.5s") {
			ms = 1500
		}
		i := map[string]int{"put": 0, "get": 1}[a.Subject]
		for _, fw := range metrics.FineWindowsOf(r, i) {
			end := (fw.Start + r.Detail.Window).Seconds()
			above := fw.P99 != nil && *fw.P99 > ms
			if end < *a.FineAtS && above || end == *a.FineAtS && !above {
				t.Errorf("alert %q: fine window ending at %vs has p99 %v against %v ms", a.Message, end, fw.P99, ms)
			}
		}
	}
	if crossings < 3 {
		t.Errorf("%d latency alerts, want put's three thresholds at least: %+v", crossings, v.Alerts)
	}
	var page bytes.Buffer
	if err := HTML(&page, sc, runs, sum, nil); err != nil {
		t.Fatal(err)
	}
	d := htmlBlob(t, page.String())
	if len(d.FineTimes) != 24 || d.FineS != 5 {
		t.Fatalf("blob: %d fine times of %v s, want 24 of 5 s", len(d.FineTimes), d.FineS)
	}
	for si, st := range d.Variants[0].Streams {
		for k, x := range st.FineP99 {
			want := p99[recs[1+2*k+si][1]+" "+st.Name]
			if got := optNum(x); got != want && !(x != nil && want != "" && closeTo(*x, want)) {
				t.Errorf("%s, fine window %d: p99 %s in the blob, %q in the CSV", st.Name, k, got, want)
			}
		}
	}
	get := v.Streams[1]
	if get.RetryLabel != "duplicate lookups" || get.Retried == nil || get.Retried.PeakCount == 0 {
		t.Fatalf("get: retry label %q, retried %+v; want the label and when", get.RetryLabel, get.Retried)
	}
	var text bytes.Buffer
	Text(&text, sum)
	if want := "get: " + units.Count(get.Retries) + " duplicate lookups (retries), sent in the windows from " + get.Retried.From; !strings.Contains(text.String(), want) {
		t.Errorf("the text report does not say %q:\n%s", want, text.String())
	}
	found := false
	for _, a := range v.Alerts {
		found = found || a.Kind == "timed_out" && strings.Contains(a.Message, "duplicate lookups (retries) sent in it")
	}
	if !found {
		t.Errorf("no timed-out alert names the duplicate lookups: %+v", v.Alerts)
	}
}

// closeTo reports whether x and the CSV's text s agree to the CSV's precision.
func closeTo(x float64, s string) bool {
	y, err := strconv.ParseFloat(s, 64)
	return err == nil && (x-y)*(x-y) < 1e-6
}

// TestClaims measures testdata/detail.toml's claims: each measured value is the metrics
// figure it names (the offered rate of the first window, the fine crossing the latency
// alert gives, the first window with a retry, the one shard's share), and the verdicts
// follow the claims' agree and within; a claim the run does not bear out carries its why.
func TestClaims(t *testing.T) {
	sc, runs := runAll(t, "../testdata/detail.toml")
	r := runs[0].Result
	sum := Summarize(sc, runs)
	cs := sum.Claims
	if len(cs) != 6 {
		t.Fatalf("%d claims, want 6: %+v", len(cs), cs)
	}
	rate := float64(r.Streams[0].Win[0].Offered) / 60
	var fineAt float64
	for _, a := range sum.Variants[0].Alerts {
		if a.Kind == "latency" && a.Subject == "put" && strings.Contains(a.Message, "crossed 200ms") && a.FineAtS != nil {
			fineAt = *a.FineAtS
		}
	}
	first := RetriedFromS(t, sum.Variants[0].Streams[1])
	want := []struct {
		value  float64
		agrees bool
	}{{rate, math.Abs(rate-500) <= 50}, {fineAt, math.Abs(fineAt-70) <= 5}, {first, first >= 60}, {100, true}, {*sum.Variants[0].Streams[1].Latency.P99, false}, {1, false}}
	for i, w := range want {
		c := cs[i]
		if c.Value == nil || math.Abs(*c.Value-w.value) > 1e-6 || c.Agrees == nil || *c.Agrees != w.agrees {
			t.Errorf("claim %q: measured %s (agrees %v), want %v (agrees %v)", c.Text, c.Measured, c.Agrees != nil && *c.Agrees, w.value, w.agrees)
		}
		if (c.Why != "") != (i == 4) {
			t.Errorf("claim %q: why %q; want the scenario's why only where the run disagrees", c.Text, c.Why)
		}
	}
	var md bytes.Buffer
	ReportMarkdown(&md, sc, sum, nil)
	if !regexp.MustCompile(`\| lookups stay under 50 ms \(at most 50.0 ms\) +\| [0-9.]+ ms \(get over the run\) in base +\| no +\| they wait behind the writes' queue \|`).MatchString(md.String()) {
		t.Errorf("report.md does not set the claims beside the run:\n%s", md.String())
	}
	// The terminal's text prints the same verdicts and figures, a line each after the
	// variants.
	var text bytes.Buffer
	Text(&text, sum)
	_, tail, ok := strings.Cut(text.String(), "\nclaims (")
	if !ok {
		t.Fatalf("the text output prints no claims:\n%s", text.String())
	}
	lines := strings.Split(strings.TrimSpace(tail), "\n")[1:]
	if len(lines) != len(cs) {
		t.Fatalf("%d lines of claims, want %d:\n%s", len(lines), len(cs), tail)
	}
	for i, c := range cs {
		verdict := map[bool]string{true: "holds", false: "does not hold"}[*c.Agrees]
		if want := fmt.Sprintf("%-13s  %s (%s): %s in base", verdict, c.Text, c.Says, c.Measured); strings.TrimSpace(lines[i]) != want {
			t.Errorf("text line %q, want %q", strings.TrimSpace(lines[i]), want)
		}
	}
	if !strings.Contains(tail, "does not hold  lookups stay under 50 ms (at most 50.0 ms): ") {
		t.Errorf("the text output's claims do not say that lookups do not stay under 50 ms:\n%s", tail)
	}
	// A claim the run cannot measure says why, once.
	var none bytes.Buffer
	claimsText(&none, []ClaimResult{{Text: "the fix holds", Says: "at most 2x", Measured: "-", Note: "not measured: its variant did not run"}})
	if want := "   not measured   the fix holds (at most 2x): its variant did not run\n"; !strings.HasSuffix(none.String(), want) {
		t.Errorf("an unmeasured claim prints\n%s\nwant the line %q", none.String(), want)
	}
}

// RetriedFromS is when a stream first retried, in seconds from the start.
func RetriedFromS(t *testing.T, st StreamSummary) float64 {
	t.Helper()
	if st.Retried == nil {
		t.Fatalf("%s sent no retry", st.Name)
	}
	return st.Retried.FromS
}

// TestClaimWithinZeroIsNotAbout: a claim that agrees within 0% asks for the figure itself,
// so it says "120", not "about 120"; within 10% says "about".
func TestClaimWithinZeroIsNotAbout(t *testing.T) {
	sc := &metrics.Scenario{}
	sc.Claims = []metrics.Claim{
		{Text: "exact", Measure: "partitions", VariantName: "v", Value: 120, Agree: "about"},
		{Text: "near", Measure: "partitions", VariantName: "v", Value: 120, Agree: "about", Within: 0.1},
		{Text: "exact time", Measure: "first_retry", VariantName: "v", Value: 60, Agree: "about", Time: true},
	}
	cs := Claims(sc, nil)
	for i, want := range []string{"120", "about 120", "00:01"} {
		if cs[i].Says != want {
			t.Errorf("claim %q says %q; want %q", cs[i].Text, cs[i].Says, want)
		}
	}
}
