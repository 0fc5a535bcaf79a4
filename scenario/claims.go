package scenario

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Claim is one [[claims]] entry: what a story says, and the figure of the run that tests it.
type Claim struct {
	Text      string     `toml:"text"`
	Measure   string     `toml:"measure"`
	Stream    string     `toml:"stream"`
	Variant   string     `toml:"variant"`
	Base      string     `toml:"base"`
	At        Instant    `toml:"at"`
	Threshold Duration   `toml:"threshold"`
	Value     ClaimValue `toml:"value"`
	Agree     string     `toml:"agree"`
	Within    string     `toml:"within"`
	Why       string     `toml:"why"`
}

// ClaimValue is a claim's figure: a number, or a clock time for the measures that are times.
type ClaimValue struct {
	Text   string
	Number float64
	IsTime bool
	set    bool
}

// Set reports whether the value was given.
func (v ClaimValue) Set() bool { return v.set }

// DecodeTOML reads a number or a clock time (or a duration since the start).
func (v *ClaimValue) DecodeTOML(x any) error {
	switch x := x.(type) {
	case int64:
		*v = ClaimValue{Text: strconv.FormatInt(x, 10), Number: float64(x), set: true}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("must be a finite number or a clock time (got %v)", x)
		}
		*v = ClaimValue{Text: strconv.FormatFloat(x, 'g', -1, 64), Number: x, set: true}
	case string:
		if _, err := units.ParseInstant(x, 0); err != nil {
			return err
		}
		*v = ClaimValue{Text: x, IsTime: true, set: true}
	default:
		return fmt.Errorf("must be a number or a clock time such as \"08:15\" (got %s)", tomlx.Describe(x))
	}
	return nil
}

// The measures a claim can name, each a figure package metrics derives from a run:
//
//   - offered_rate, completed_rate: a stream's requests offered (or completed) per second
//     in the window that holds at;
//   - p99_crossing: when a stream's p99 first passed threshold (a clock time; at the fine
//     grain inside a detail range);
//   - first_retry: when a stream first sent a retry (a clock time: the start of its window);
//   - top_shard_share: the busiest shard's share of the rows written, in percent;
//   - partitions: the partitions a stream's requests visit, on average;
//   - p99: a stream's p99 over the run, in milliseconds;
//   - p99_ratio: a stream's p99 in variant over its p99 in base.
var claimMeasures = []string{"offered_rate", "completed_rate", "p99_crossing", "first_retry", "top_shard_share", "partitions", "p99", "p99_ratio"}

// ClaimSpec is a validated claim. Variant and Base are as written; the loader checks them
// against the scenario's variants and sets VariantName and BaseName (VariantName "" means
// the first variant). Value is a number, or for a time measure (Time) an offset from the
// start; Within is a share of Value (0.1: 10%), or for a time measure a duration.
type ClaimSpec struct {
	Text, Measure, Why    string
	Stream                string
	StreamIndex           int
	Variant, Base         string
	VariantName, BaseName string
	At                    sim.Time
	Threshold             sim.Time
	Value                 float64
	Time                  bool
	Says                  string // the value as written
	Agree                 string // "about", "at_most" or "at_least"
	Within                float64
	WithinTime            sim.Time
}

// maxClaimText bounds a claim's words and its why.
const maxClaimText = 300

// resolveClaims checks every claim against the scenario's streams, clock and measures.
func resolveClaims(c *checker, f *File, s *Resolved) {
	for i, cl := range f.Claims {
		key := fmt.Sprintf("claims[%d]", i)
		cs := ClaimSpec{Text: cl.Text, Measure: cl.Measure, Why: cl.Why, Stream: cl.Stream, StreamIndex: -1,
			Variant: cl.Variant, Base: cl.Base, Says: cl.Value.Text}
		before := len(c.probs)
		claimText(c, key+".text", cl.Text, true)
		claimText(c, key+".why", cl.Why, false)
		if !slices.Contains(claimMeasures, cl.Measure) {
			c.add(key+".measure", "must be one of %s (got %q)", strings.Join(quoteAll(claimMeasures), ", "), cl.Measure)
			continue
		}
		claimKeys(c, key, cl)
		claimStream(c, key, cl, s, &cs)
		claimAt(c, key, cl, f, s, &cs)
		if cl.Threshold.Set() {
			cs.Threshold = c.duration(key+".threshold", cl.Threshold, "", 1)
		}
		cs.Time = cl.Measure == "p99_crossing" || cl.Measure == "first_retry"
		claimValue(c, key, cl, s, &cs)
		cs.Agree = oneOf(c, key+".agree", cl.Agree, "about", "about", "at_most", "at_least")
		claimWithin(c, key, cl, &cs)
		if len(c.probs) == before {
			s.Claims = append(s.Claims, cs)
		}
	}
}

// claimText checks a claim's words (text, why): plain text, for tables and report.md.
func claimText(c *checker, key, text string, required bool) {
	switch {
	case text == "" && required:
		c.add(key, "required: the claim in the story's words")
	case strings.TrimSpace(text) != text || len(text) > maxClaimText || strings.ContainsAny(text, "\n\r\t|<>`") || strings.IndexFunc(text, isControl) >= 0:
		c.add(key, "must be plain text of at most %d characters, without surrounding spaces, line breaks, control characters, |, <, > or ` (got %q)", maxClaimText, text)
	}
}

// claimKeys checks that a claim gives the keys its measure needs, and no other.
func claimKeys(c *checker, key string, cl Claim) {
	m := cl.Measure
	for _, k := range []struct {
		name         string
		needs, given bool
	}{
		{"stream", m != "top_shard_share", cl.Stream != ""},
		{"at", m == "offered_rate" || m == "completed_rate", cl.At.Set()},
		{"threshold", m == "p99_crossing", cl.Threshold.Set()},
		{"base", m == "p99_ratio", cl.Base != ""},
	} {
		switch {
		case k.needs && !k.given:
			c.add(key+"."+k.name, "required by measure = %q", m)
		case !k.needs && k.given:
			c.add(key+"."+k.name, "does not apply to measure = %q", m)
		}
	}
}

// claimStream finds the stream a claim names.
func claimStream(c *checker, key string, cl Claim, s *Resolved, cs *ClaimSpec) {
	if cl.Stream == "" {
		return
	}
	for j, st := range s.Streams {
		if st.Name == cl.Stream {
			cs.StreamIndex = j
		}
	}
	if cs.StreamIndex < 0 && cl.Measure != "top_shard_share" {
		c.add(key+".stream", "names no stream of the scenario (got %q)", cl.Stream)
	}
}

// claimAt reads the time a claim's rate is measured at.
func claimAt(c *checker, key string, cl Claim, f *File, s *Resolved, cs *ClaimSpec) {
	if !cl.At.Set() {
		return
	}
	if at, err := cl.At.At(s.Start); err != nil {
		c.add(key+".at", "%v", err)
	} else if before, ok := passed(f, s, cl.At, at); ok {
		cs.At = before // before the run: not measured (report.Claims)
	} else if s.Duration > 0 && at >= s.Duration && !pastEnd(f) {
		c.add(key+".at", "must be inside the run, which ends at %s (got %q)", units.Clock(s.Start, s.Duration, units.TimeOfDay), cl.At)
	} else {
		cs.At = at
	}
}

// claimValue reads a claim's figure: a clock time for a time measure, else a number.
func claimValue(c *checker, key string, cl Claim, s *Resolved, cs *ClaimSpec) {
	switch {
	case !cl.Value.Set():
		c.add(key+".value", "required: the figure the story gives (a number, or a clock time for measure = %q)", cl.Measure)
	case cl.Value.IsTime != cs.Time && cs.Time:
		c.add(key+".value", "must be a clock time such as \"08:15\" for measure = %q (got %s)", cl.Measure, cl.Value.Text)
	case cl.Value.IsTime != cs.Time:
		c.add(key+".value", "must be a number for measure = %q (got %q)", cl.Measure, cl.Value.Text)
	case cs.Time:
		t, _ := units.ParseInstant(cl.Value.Text, s.Start)
		cs.Value = t.Seconds()
	default:
		cs.Value = cl.Value.Number
	}
}

// claimWithin reads how near the figure must come: a duration for a time measure (5
// minutes unless given), else a share of the value (10%).
func claimWithin(c *checker, key string, cl Claim, cs *ClaimSpec) {
	within := cl.Within
	if within == "" {
		within = map[bool]string{true: "5m", false: "10%"}[cs.Time]
	}
	if cs.Time {
		if d, err := units.ParseDuration(within); err != nil || d < 0 {
			c.add(key+".within", "must be a duration such as \"5m\" for measure = %q (got %q)", cl.Measure, within)
		} else {
			cs.WithinTime = d
		}
	} else if p, err := strconv.ParseFloat(strings.TrimSuffix(within, "%"), 64); err != nil || !strings.HasSuffix(within, "%") || p < 0 || p > 1000 {
		c.add(key+".within", "must be a share of the value such as \"10%%\" for measure = %q (got %q)", cl.Measure, within)
	} else {
		cs.Within = p / 100
	}
}
