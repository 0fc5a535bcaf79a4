package trace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

// FitOptions name the scenario Fit writes.
type FitOptions struct {
	Name   string // scenario name ([a-z0-9-]+)
	Source string // the log's file name, for the description
	// Points bounds the rate schedule's points (default 48).
	Points int
}

// Fitted is what Fit writes: the scenario and what it says about the log.
type Fitted struct {
	TOML []byte
	// Fields describes each field of the table in a few words ("id: a sequence ...").
	Fields []string
	// Key is the fitted key design's parts.
	Key []string
	// Notes are what the scenario could not reproduce, one sentence each.
	Notes []string
}

// categoricalMax is the most values a part may have to be written out as a categorical
// field, each with its weight.
const categoricalMax = 16

// Fit writes a synthetic scenario (TOML) that reproduces the analyzed log without it: two
// streams, reads and writes, whose schedules follow the log's rate over time (points at
// the centres of equal groups of the rate windows, each the group's mean rate, times the
// operation's share of the log), and one field per key part (a.Keys.Parts; without them
// one field, key, for the whole key):
//
//   - a part that grows with time (monotonic, positive score) is time-ordered: text is
//     a uuidv7 or a ulid when its most frequent value is written as one, else a time; a
//     decimal number a sequence (an auto-increment id, new at most writes) or,
//     from 2^40 up, a snowflake; a number that repeats across writes is a time;
//   - a part of at most categoricalMax values, all counted exactly, is categorical, each
//     value with its count as weight;
//   - any other part is a Zipf law with the part's fitted exponent over its distinct
//     values, or uniform when fewer than 3 values have 30 records (nothing stands out).
//     Its most frequent values are listed in a comment with the ids the (scrambled) law
//     draws them as.
//
// The key is the part that alone tells the log's keys apart (as many distinct values as
// whole keys: the other parts are functions of it, as far as the log shows), or else every
// part, drawn independently.
func Fit(a *Analysis, o FitOptions) *Fitted {
	out := &Fitted{}
	parts := fitParts(a)
	key, note := fitKey(a, parts)
	if note != "" {
		out.Notes = append(out.Notes, note)
	}
	out.Key = key
	mono := map[string]Monotony{}
	for _, m := range a.Keys.Monotonic {
		mono[m.Part] = m
	}
	var fields strings.Builder
	var desc []string
	for _, p := range parts {
		f := fitPart(p, mono[p.Part], a)
		fmt.Fprintf(&fields, "%s = %s\n", tomlKey(p.Part), f.line)
		for _, c := range f.comment {
			fmt.Fprintf(&fields, "# %s\n", c)
		}
		out.Fields = append(out.Fields, p.Part+": "+f.what)
		desc = append(desc, p.Part+" "+f.what)
		if f.note != "" {
			out.Notes = append(out.Notes, f.note)
		}
	}

	var b strings.Builder
	readShare := float64(a.Reads) / math.Max(float64(a.Records), 1)
	dur := math.Max(math.Ceil(rateSpan(a)), 1)
	fmt.Fprintf(&b, "name        = %q\n", o.Name)
	fmt.Fprintf(&b, "description = %q\n", fmt.Sprintf("Fitted by shardsim fit to %s: %s records over %s s, %.1f%% reads; %s.",
		o.Source, units.Count(int64(math.Round(float64(a.Records)))), strconv.FormatFloat(a.DurationS, 'f', 1, 64), 100*readShare, strings.Join(desc, "; ")))
	fmt.Fprintf(&b, "seed        = 1\nduration    = %q\nwindow      = %q\n\n", units.Seconds(dur, units.Decimal), units.Seconds(math.Max(1, math.Round(dur/60)), units.Decimal))
	b.WriteString("[cluster]\nnodes   = 4\ncores   = 4\nnetwork = \"0.5ms\"\n\n")
	b.WriteString("[table]\nname = \"fitted\"\n[table.fields]\n")
	b.WriteString(fields.String())
	writeKeyspace(&b, key, len(parts))
	writeStreams(&b, schedulePoints(a, o.Points), readShare)
	out.TOML = []byte(b.String())
	return out
}

// fitParts are the key parts Fit draws: the analysis's parts, or without them one part,
// key, for the whole key.
func fitParts(a *Analysis) []PartKeys {
	if len(a.Keys.Parts) > 0 {
		return a.Keys.Parts
	}
	return []PartKeys{{Part: "key", Distinct: a.Keys.Distinct, DistinctExact: a.Keys.DistinctExact, Top: a.Keys.Top,
		ZipfS: a.Keys.ZipfS, ZipfRanks: a.Keys.ZipfRanks, ZipfKS: a.Keys.ZipfKS}}
}

// fitKey chooses the fitted key: one part that has as many distinct values as whole keys
// (within the distinct sketch's error), or all of them, with a note that they are drawn
// independently.
func fitKey(a *Analysis, parts []PartKeys) (key []string, note string) {
	key = make([]string, 0, len(parts))
	for _, p := range parts {
		key = append(key, p.Part)
	}
	if len(parts) == 1 {
		return key, ""
	}
	best := 0
	for i, p := range parts {
		if p.Distinct > parts[best].Distinct {
			best = i
		}
	}
	p := parts[best]
	same := p.Distinct == a.Keys.Distinct
	if !(p.DistinctExact && a.Keys.DistinctExact) {
		same = p.Distinct >= (1-3/math.Sqrt(DistinctK-2))*a.Keys.Distinct
	}
	if same {
		return []string{p.Part}, ""
	}
	return key, fmt.Sprintf("the key's parts are drawn independently, so a whole key's share of the records is the product of its parts' shares (no part alone tells the log's %s keys apart)", units.Count(int64(math.Round(a.Keys.Distinct))))
}

// writeKeyspace writes the [keyspace] table of a hash scheme over key, one of the log's
// parts key parts.
func writeKeyspace(b *strings.Builder, key []string, parts int) {
	quoted := make([]string, len(key))
	for i, k := range key {
		quoted[i] = strconv.Quote(k)
	}
	b.WriteString("\n[keyspace]\nscheme = \"hash\"\nshards = 16\n")
	fmt.Fprintf(b, "key    = [%s]\n", strings.Join(quoted, ", "))
	if len(key) < parts {
		fmt.Fprintf(b, "# %s alone tells the log's keys apart (as many distinct values as whole keys); the other parts are fields outside the key\n", key[0])
	}
}

// writeStreams writes the reads and writes streams (one left out when the log has none
// of it), each on the schedule sched scaled by its share of the records.
func writeStreams(b *strings.Builder, sched []RatePoint, readShare float64) {
	for _, st := range []struct {
		name, op string
		share    float64
	}{{"reads", "read", readShare}, {"writes", "write", 1 - readShare}} {
		if st.share == 0 {
			continue
		}
		fmt.Fprintf(b, "\n[[streams]]\nname     = %q\nop       = %q\ncost     = \"0.5ms\"\nschedule = [\n", st.name, st.op)
		for _, p := range sched {
			fmt.Fprintf(b, "  { at = %q, rate = %s },\n", units.Seconds(p.TS, units.Decimal), strconv.FormatFloat(units.Round(p.PerS*st.share, 3), 'f', -1, 64))
		}
		b.WriteString("]\n")
	}
}

// partFit is the generator Fit chose for one key part: the field's TOML value, comment
// lines, a few words for the description, and a note when the log's property is lost.
type partFit struct {
	line       string
	comment    []string
	what, note string
}

// fitPart chooses the generator of one key part: time-ordered when it grows with time,
// else by its popularity (categorical, uniform or Zipf).
func fitPart(p PartKeys, m Monotony, a *Analysis) partFit {
	n := uint64(math.Max(math.Round(p.Distinct), 1))
	if m.Monotonic && m.Score > 0 {
		return timeOrderedFit(p, m, a)
	}
	var f partFit
	switch {
	case categorical(p, n):
		f = categoricalFit(p, n)
	case p.ZipfRanks == 0:
		f = uniformFit(p, n)
	default:
		f = zipfFit(p, n)
	}
	if m.Monotonic {
		f.note = fmt.Sprintf("part %s falls with time (correlation %.3f), which no generator reproduces: it is drawn by popularity instead", p.Part, m.Score)
	}
	return f
}

// timeOrderedFit draws a part that grows with time from a time-ordered generator.
func timeOrderedFit(p PartKeys, m Monotony, a *Analysis) partFit {
	gen := timeOrderedGen(p, a)
	return partFit{
		line: fmt.Sprintf("{ gen = %q }", gen),
		comment: []string{
			fmt.Sprintf("%s grows with time in the log (correlation %.3f): drawn as %s, so a range scheme sends every new write to the last range.", p.Part, m.Score, timeOrderedKind(gen)),
			"Reads draw the rows written at their own time (age 0): give the reads stream an age to read older rows.",
		},
		what: fmt.Sprintf("a %s (grows with time)", gen),
	}
}

// timeOrderedGen names the generator of a part that grows with time: a text id's kind
// (uuidv7, ulid) or a time for text; for numbers new at most writes a sequence, or from
// 2^40 up a snowflake; a time for numbers that repeat.
func timeOrderedGen(p PartKeys, a *Analysis) string {
	fresh := p.Distinct >= 0.5*float64(max(a.Writes, 1))
	switch {
	case !p.Decimal && len(p.Top) > 0 && textID(p.Top[0].Key) != "":
		// Time-ordered ids written as text: the order a range scheme keeps.
		return textID(p.Top[0].Key)
	case !p.Decimal:
		// Text that grows with time: a date or a time stamp.
		return "time"
	case fresh && p.MaxValue >= 1<<40:
		return "snowflake"
	case fresh:
		return "sequence"
	}
	return "time"
}

// categorical says that a part of n values can be written out value by value: at most
// categoricalMax of them, all counted exactly, each a TOML string that needs no escape
// but \" and \\.
func categorical(p PartKeys, n uint64) bool {
	exact := p.DistinctExact && len(p.Top) == int(n) && n <= categoricalMax
	for _, t := range p.Top {
		exact = exact && t.Error == 0 && plainText(t.Key)
	}
	return exact
}

// categoricalFit draws a part from its n values, each weighted by its count.
func categoricalFit(p PartKeys, n uint64) partFit {
	vals := make([]string, len(p.Top))
	weights := make([]string, len(p.Top))
	for i, t := range p.Top {
		vals[i] = strconv.Quote(t.Key)
		weights[i] = strconv.FormatInt(t.Count, 10)
	}
	return partFit{
		line: fmt.Sprintf("{ gen = \"categorical\", values = [%s], weights = [%s] }", strings.Join(vals, ", "), strings.Join(weights, ", ")),
		what: fmt.Sprintf("categorical over its %d value%s", n, plural(int(n))),
	}
}

// uniformFit draws a part of n values of which none stands out uniformly.
func uniformFit(p PartKeys, n uint64) partFit {
	return partFit{
		line:    fmt.Sprintf("{ gen = \"uniform\", n = %d }", n),
		comment: []string{fmt.Sprintf("%s: no value stands out (fewer than 3 have 30 records or more): uniform over the log's %s values.", p.Part, units.Count(int64(math.Round(float64(n)))))},
		what:    fmt.Sprintf("uniform over %s values", units.Count(int64(math.Round(float64(n))))),
		note:    fmt.Sprintf("part %s: fewer than 3 values have 30 records or more, so no Zipf law can be fitted; it is drawn uniform over %s values", p.Part, units.Count(int64(math.Round(float64(n))))),
	}
}

// zipfFit draws a part of n values from its fitted Zipf law, and lists its most frequent
// values with the ids the (scrambled) law draws them as.
func zipfFit(p PartKeys, n uint64) partFit {
	s := units.Round(p.ZipfS, 4)
	comment := []string{fmt.Sprintf("%s: Zipf fit over the top %d values (Kolmogorov-Smirnov distance %.4f). The log's most frequent", p.Part, p.ZipfRanks, p.ZipfKS),
		fmt.Sprintf("values, and the %s each stands for in a run (the law's ranks are scrambled over [0, %d)):", p.Part, n)}
	z := workload.NewZipf(n, s, true)
	for i, t := range p.Top[:min(len(p.Top), 10)] {
		if uint64(i) >= n {
			break
		}
		comment = append(comment, fmt.Sprintf("  %s = %d  %q  %.2f%%", p.Part, z.ID(uint64(i)), t.Key, 100*t.Share))
	}
	return partFit{
		line:    fmt.Sprintf("{ gen = \"zipf\", n = %d, s = %s }", n, strconv.FormatFloat(s, 'f', -1, 64)),
		comment: comment,
		what:    fmt.Sprintf("Zipf s = %.3f over %s values", p.ZipfS, units.Count(int64(math.Round(float64(n))))),
	}
}

// textID names the time-ordered id that text s is written as: "uuidv7" (8-4-4-4-12 hex
// digits, version 7), "ulid" (26 characters of Crockford's base32), or "".
func textID(s string) string {
	switch {
	case isUUIDv7(s):
		return "uuidv7"
	case len(s) == 26 && s[0] <= '7' && allIn(s, crockford32):
		return "ulid"
	}
	return ""
}

// crockford32 are the digits of Crockford's base32, either case (a ULID's characters).
const crockford32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz"

// isUUIDv7 says that s is a UUID of version 7: 8-4-4-4-12 hex digits, the version digit 7.
func isUUIDv7(s string) bool {
	if len(s) != 36 || s[14] != '7' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !allIn(s[i:i+1], "0123456789abcdefABCDEF") {
				return false
			}
		}
	}
	return true
}

// allIn says that every byte of s is one of set's.
func allIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

func timeOrderedKind(gen string) string {
	switch gen {
	case "uuidv7":
		return "UUIDv7 ids (gen = \"uuidv7\")"
	case "ulid":
		return "ULIDs (gen = \"ulid\")"
	case "sequence":
		return "auto-increment ids (gen = \"sequence\")"
	case "snowflake":
		return "time-ordered 64-bit ids (gen = \"snowflake\")"
	}
	return "the row time (gen = \"time\")"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// plainText says that s is valid UTF-8 with no control character.
func plainText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// tomlKey quotes a field name unless it is a bare TOML key.
func tomlKey(k string) string {
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// rateSpan is how long the log's rate windows cover: its duration, but for a last window
// left out of the rate (a few records past a window's edge), which the fitted run does not
// last into either.
func rateSpan(a *Analysis) float64 {
	if n := len(a.Rate); n > 0 {
		return math.Min(a.DurationS, a.Rate[n-1].TS+a.RateWindow)
	}
	return a.DurationS
}

// schedulePoints groups the rate windows into at most points groups: a point at the
// start, one at the centre of each group with its mean rate, and one at the end.
func schedulePoints(a *Analysis, points int) []RatePoint {
	if points <= 0 {
		points = 48
	}
	r := a.Rate
	if len(r) == 0 {
		return []RatePoint{{TS: 0, PerS: 0}}
	}
	group := (len(r) + points - 1) / points
	var out []RatePoint
	end := rateSpan(a)
	for i := 0; i < len(r); i += group {
		j := min(i+group, len(r))
		lo := r[i].TS
		hi := math.Min(r[j-1].TS+a.RateWindow, math.Max(end, lo+1e-3))
		var count float64
		for k := i; k < j; k++ {
			w := a.RateWindow
			if k == len(r)-1 {
				w = math.Max(math.Min(end-r[k].TS, a.RateWindow), 1e-3)
			}
			count += r[k].PerS * w
		}
		out = append(out, RatePoint{TS: (lo + hi) / 2, PerS: count / (hi - lo)})
	}
	first, last := out[0], out[len(out)-1]
	if first.TS > 0 {
		out = append([]RatePoint{{TS: 0, PerS: first.PerS}}, out...)
	}
	if end > last.TS {
		out = append(out, RatePoint{TS: end, PerS: last.PerS})
	}
	// Schedule points must be in strictly increasing time order at millisecond precision.
	dedup := out[:1]
	for _, p := range out[1:] {
		if units.Round(p.TS, 3) > units.Round(dedup[len(dedup)-1].TS, 3) {
			dedup = append(dedup, p)
		}
	}
	return dedup
}
