package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// JSON writes the summary as indented JSON with a final newline.
func JSON(w io.Writer, s *Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

func fmtMs(x float64) string {
	switch {
	case x == 0:
		return "-"
	case x < 10:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case x < 1000:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// fmtRatio formats a max/median ratio; nil is a median of 0 under a working shard.
func fmtRatio(r *float64) string {
	if r == nil {
		return "∞ (median shard idle)"
	}
	return strconv.FormatFloat(*r, 'f', 2, 64) + "x"
}

func fmtPct(x float64) string { return strconv.FormatFloat(x*100, 'f', 1, 64) + "%" }

// fmtCount formats a count for people: 81,986,634.
func fmtCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// fmtFanout shows a request's mean fan-out (subrequests), its maximum, and the mean
// partitions visited when that differs: "12.0 max 12", "12.0 max 12, 120 parts".
func fmtFanout(f Fanout) string {
	if f.Max <= 1 && f.Mean <= 1 {
		return strconv.FormatFloat(f.Mean, 'f', 0, 64)
	}
	s := fmt.Sprintf("%s max %d", strconv.FormatFloat(f.Mean, 'f', 1, 64), f.Max)
	if math.Abs(f.Partitions-f.Mean) > 0.05 {
		s += fmt.Sprintf(", %s parts", strconv.FormatFloat(f.Partitions, 'f', 1, 64))
	}
	return s
}

func streamTable(v *VariantSummary) *table {
	t := &table{head: []string{"stream", "op", "offered", "completed", "errors", "p50 ms", "p99 ms", "p999 ms", "max ms", "fan-out"}, left: 2}
	for _, s := range v.Streams {
		t.add(s.Name, s.Op, fmtCount(s.Offered), fmtCount(s.Completed), fmtCount(s.Rejected+s.Throttled+s.TimedOut),
			fmtMs(s.Latency.P50), fmtMs(s.Latency.P99), fmtMs(s.Latency.P999), fmtMs(s.Latency.Max), fmtFanout(s.Fanout))
	}
	return t
}

func heatLine(v *VariantSummary) string {
	k := v.Skew
	line := fmt.Sprintf("hottest shard %d (node %d): %s load, median shard %s, skew %s",
		k.HottestShard, v.Shards[k.HottestShard].Node, fmtPct(k.HottestLoad), fmtPct(k.MedianLoad), fmtRatio(k.MaxOverMedian))
	if k.PeakWindow != "" {
		line += fmt.Sprintf("; busiest window %s: shard %d at %s, median %s", k.PeakWindow, k.PeakHottestShard, fmtPct(k.PeakHottestLoad), fmtPct(k.PeakMedianLoad))
	}
	return line
}

// Text writes the human-readable tables: per variant the streams, then the shard heat
// summary, then the alert timeline.
func Text(w io.Writer, s *Summary) {
	fmt.Fprintf(w, "scenario %s, seed %d, %gs simulated from %s\n", s.Scenario, s.Seed, s.DurationS, s.Start)
	for i := range s.Variants {
		v := &s.Variants[i]
		fmt.Fprintf(w, "\n== %s\n   %s\n\n", v.Name, v.Key)
		streamTable(v).text(w, "   ")
		fmt.Fprintf(w, "\n   %s\n", heatLine(v))
		if note := stopNote(v); note != "" {
			fmt.Fprintf(w, "   %s\n", note)
		}
		if len(v.Alerts) > 0 {
			fmt.Fprintln(w, "\n   alerts:")
			for _, a := range v.Alerts {
				fmt.Fprintf(w, "   %-8s  %-17s  %s\n", a.At, a.Kind, a.Message)
			}
		} else {
			fmt.Fprintln(w, "\n   no alerts")
		}
	}
}

// Markdown writes the same tables as Markdown.
func Markdown(w io.Writer, s *Summary) {
	fmt.Fprintf(w, "# %s\n\nSeed %d, %gs simulated from %s.\n", s.Scenario, s.Seed, s.DurationS, s.Start)
	for i := range s.Variants {
		markdownVariant(w, &s.Variants[i])
	}
}

func markdownVariant(w io.Writer, v *VariantSummary) {
	fmt.Fprintf(w, "\n## %s\n\n", v.Name)
	if v.Description != "" {
		fmt.Fprintf(w, "%s\n\n", v.Description)
	}
	fmt.Fprintf(w, "Key: %s.\n\n", v.Key)
	streamTable(v).markdown(w)
	fmt.Fprintf(w, "\n%s.\n", capitalize(heatLine(v)))
	if note := stopNote(v); note != "" {
		fmt.Fprintf(w, "\n**%s**\n", note)
	}
	if len(v.Alerts) > 0 {
		fmt.Fprintln(w, "\nAlert timeline (each at the end of the window in which its detector fired):")
		fmt.Fprintln(w, "\n| at | kind | what |\n| --- | --- | --- |")
		for _, a := range v.Alerts {
			fmt.Fprintf(w, "| %s | %s | %s |\n", a.At, a.Kind, a.Message)
		}
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// CSV writes one row per variant and stream with the stream table's columns.
func CSV(w io.Writer, s *Summary) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"variant", "stream", "op", "offered", "completed", "rejected", "throttled", "timed_out",
		"mean_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "fanout_mean", "fanout_max", "partitions_mean"})
	for _, v := range s.Variants {
		for _, st := range v.Streams {
			l := st.Latency
			cw.Write([]string{v.Name, st.Name, st.Op, rawCount(st.Offered), rawCount(st.Completed), rawCount(st.Rejected),
				rawCount(st.Throttled), rawCount(st.TimedOut), num(l.Mean), num(l.P50), num(l.P95), num(l.P99), num(l.P999),
				num(l.Max), num(st.Fanout.Mean), strconv.Itoa(st.Fanout.Max), num(st.Fanout.Partitions)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// rawCount formats a count for machines: 81986634.
func rawCount(n int64) string { return strconv.FormatInt(n, 10) }

func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// stopNote says why a variant's figures cover less than the whole run, or "".
func stopNote(v *VariantSummary) string {
	switch {
	case v.Saturated != nil:
		return fmt.Sprintf("SATURATED at %s: %d subrequests were waiting and the backlog kept growing, so the run stopped there; the figures cover the first %gs.",
			v.Saturated.At, v.Saturated.Backlog, v.ElapsedS)
	case v.Partial:
		return fmt.Sprintf("PARTIAL: the run was interrupted; the figures cover the first %gs.", v.ElapsedS)
	}
	return ""
}
