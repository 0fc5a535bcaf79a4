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
	var b strings.Builder
	out := &Fitted{}
	dur := math.Max(math.Ceil(rateSpan(a)), 1)
	window := math.Max(1, math.Round(dur/60))
	recs := math.Max(float64(a.Records), 1)
	readShare := float64(a.Reads) / recs
	parts := a.Keys.Parts
	if len(parts) == 0 {
		parts = []PartKeys{{Part: "key", Distinct: a.Keys.Distinct, DistinctExact: a.Keys.DistinctExact, Top: a.Keys.Top,
			ZipfS: a.Keys.ZipfS, ZipfRanks: a.Keys.ZipfRanks, ZipfKS: a.Keys.ZipfKS}}
	}
	mono := map[string]Monotony{}
	for _, m := range a.Keys.Monotonic {
		mono[m.Part] = m
	}
	// The key: one part that has as many distinct values as whole keys (within the
	// distinct sketch's error), or all of them.
	key := make([]string, 0, len(parts))
	for _, p := range parts {
		key = append(key, p.Part)
	}
	if len(parts) > 1 {
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
			key = []string{p.Part}
		} else {
			out.Notes = append(out.Notes, fmt.Sprintf("the key's parts are drawn independently, so a whole key's share of the records is the product of its parts' shares (no part alone tells the log's %s keys apart)", units.Count(int64(math.Round(a.Keys.Distinct)))))
		}
	}
	out.Key = key

	var fields strings.Builder
	var desc []string
	for _, p := range parts {
		line, comment, what, note := fitPart(p, mono[p.Part], a)
		fmt.Fprintf(&fields, "%s = %s\n", tomlKey(p.Part), line)
		for _, c := range comment {
			fmt.Fprintf(&fields, "# %s\n", c)
		}
		out.Fields = append(out.Fields, p.Part+": "+what)
		desc = append(desc, p.Part+" "+what)
		if note != "" {
			out.Notes = append(out.Notes, note)
		}
	}

	fmt.Fprintf(&b, "name        = %q\n", o.Name)
	fmt.Fprintf(&b, "description = %q\n", fmt.Sprintf("Fitted by shardsim fit to %s: %s records over %s s, %.1f%% reads; %s.",
		o.Source, units.Count(int64(math.Round(float64(a.Records)))), strconv.FormatFloat(a.DurationS, 'f', 1, 64), 100*readShare, strings.Join(desc, "; ")))
	fmt.Fprintf(&b, "seed        = 1\nduration    = %q\nwindow      = %q\n\n", units.Seconds(dur, units.Decimal), units.Seconds(window, units.Decimal))
	b.WriteString("[cluster]\nnodes   = 4\ncores   = 4\nnetwork = \"0.5ms\"\n\n")
	b.WriteString("[table]\nname = \"fitted\"\n[table.fields]\n")
	b.WriteString(fields.String())
	quoted := make([]string, len(key))
	for i, k := range key {
		quoted[i] = strconv.Quote(k)
	}
	b.WriteString("\n[keyspace]\nscheme = \"hash\"\nshards = 16\n")
	fmt.Fprintf(&b, "key    = [%s]\n", strings.Join(quoted, ", "))
	if len(key) < len(parts) {
		fmt.Fprintf(&b, "# %s alone tells the log's keys apart (as many distinct values as whole keys); the other parts are fields outside the key\n", key[0])
	}
	sched := schedulePoints(a, o.Points)
	for _, st := range []struct {
		name, op string
		share    float64
	}{{"reads", "read", readShare}, {"writes", "write", 1 - readShare}} {
		if st.share == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n[[streams]]\nname     = %q\nop       = %q\ncost     = \"0.5ms\"\nschedule = [\n", st.name, st.op)
		for _, p := range sched {
			fmt.Fprintf(&b, "  { at = %q, rate = %s },\n", units.Seconds(p.TS, units.Decimal), strconv.FormatFloat(units.Round(p.PerS*st.share, 3), 'f', -1, 64))
		}
		b.WriteString("]\n")
	}
	out.TOML = []byte(b.String())
	return out
}

// fitPart chooses the generator of one key part: the field's TOML value, comment lines,
// a few words for the description, and a note when the log's property is lost.
func fitPart(p PartKeys, m Monotony, a *Analysis) (line string, comment []string, what, note string) {
	n := uint64(math.Max(math.Round(p.Distinct), 1))
	if m.Monotonic && m.Score > 0 {
		gen := "time"
		switch {
		case !p.Decimal && len(p.Top) > 0 && textID(p.Top[0].Key) != "":
			// Time-ordered ids written as text: the order a range scheme keeps.
			gen = textID(p.Top[0].Key)
		case !p.Decimal:
			// Text that grows with time: a date or a time stamp.
		case p.Distinct >= 0.5*float64(max(a.Writes, 1)) && p.MaxValue >= 1<<40:
			gen = "snowflake"
		case p.Distinct >= 0.5*float64(max(a.Writes, 1)):
			gen = "sequence"
		}
		line = fmt.Sprintf("{ gen = %q }", gen)
		comment = []string{
			fmt.Sprintf("%s grows with time in the log (correlation %.3f): drawn as %s, so a range scheme sends every new write to the last range.", p.Part, m.Score, timeOrderedKind(gen)),
			"Reads draw the rows written at their own time (age 0): give the reads stream an age to read older rows.",
		}
		return line, comment, fmt.Sprintf("a %s (grows with time)", gen), ""
	}
	if m.Monotonic {
		note = fmt.Sprintf("part %s falls with time (correlation %.3f), which no generator reproduces: it is drawn by popularity instead", p.Part, m.Score)
	}
	exact := p.DistinctExact && len(p.Top) == int(n) && n <= categoricalMax
	for _, t := range p.Top {
		// Values are written as TOML strings: only those that need no escape but \" and \\.
		exact = exact && t.Error == 0 && plainText(t.Key)
	}
	if exact {
		vals := make([]string, len(p.Top))
		weights := make([]string, len(p.Top))
		for i, t := range p.Top {
			vals[i] = strconv.Quote(t.Key)
			weights[i] = strconv.FormatInt(t.Count, 10)
		}
		line = fmt.Sprintf("{ gen = \"categorical\", values = [%s], weights = [%s] }", strings.Join(vals, ", "), strings.Join(weights, ", "))
		return line, nil, fmt.Sprintf("categorical over its %d value%s", n, plural(int(n))), note
	}
	if p.ZipfRanks == 0 {
		line = fmt.Sprintf("{ gen = \"uniform\", n = %d }", n)
		comment = []string{fmt.Sprintf("%s: no value stands out (fewer than 3 have 30 records or more): uniform over the log's %s values.", p.Part, units.Count(int64(math.Round(float64(n)))))}
		if note == "" {
			note = fmt.Sprintf("part %s: fewer than 3 values have 30 records or more, so no Zipf law can be fitted; it is drawn uniform over %s values", p.Part, units.Count(int64(math.Round(float64(n)))))
		}
		return line, comment, fmt.Sprintf("uniform over %s values", units.Count(int64(math.Round(float64(n))))), note
	}
	s := units.Round(p.ZipfS, 4)
	line = fmt.Sprintf("{ gen = \"zipf\", n = %d, s = %s }", n, strconv.FormatFloat(s, 'f', -1, 64))
	comment = append(comment, fmt.Sprintf("%s: Zipf fit over the top %d values (Kolmogorov-Smirnov distance %.4f). The log's most frequent", p.Part, p.ZipfRanks, p.ZipfKS),
		fmt.Sprintf("values, and the %s each stands for in a run (the law's ranks are scrambled over [0, %d)):", p.Part, n))
	z := workload.NewZipf(n, s, true)
	for i, t := range p.Top[:min(len(p.Top), 10)] {
		if uint64(i) >= n {
			break
		}
		comment = append(comment, fmt.Sprintf("  %s = %d  %q  %.2f%%", p.Part, z.ID(uint64(i)), t.Key, 100*t.Share))
	}
	return line, comment, fmt.Sprintf("Zipf s = %.3f over %s values", p.ZipfS, units.Count(int64(math.Round(float64(n))))), note
}

// textID names the time-ordered id that text s is written as: "uuidv7" (8-4-4-4-12 hex
// digits, version 7), "ulid" (26 characters of Crockford's base32), or "".
func textID(s string) string {
	hex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' && s[14] == '7' {
		ok := true
		for i := 0; i < len(s); i++ {
			if i != 8 && i != 13 && i != 18 && i != 23 && !hex(s[i]) {
				ok = false
			}
		}
		if ok {
			return "uuidv7"
		}
	}
	if len(s) == 26 && s[0] <= '7' {
		for i := 0; i < len(s); i++ {
			if !strings.ContainsRune("0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz", rune(s[i])) {
				return ""
			}
		}
		return "ulid"
	}
	return ""
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
