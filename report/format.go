package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/units"
)

// JSON writes the summary as indented JSON with a final newline.
// Names and values reach it with their bidirectional controls escaped (escape.JSON).
func JSON(w io.Writer, s *Summary) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := w.Write(escape.JSON(buf.Bytes()))
	return err
}

// fmtOptMs formats optional milliseconds: "-" when absent (nothing completed).
func fmtOptMs(p *float64) string {
	if p == nil {
		return "-"
	}
	return metrics.Ms(*p)
}

// optNum formats an optional number for CSV: an empty cell when absent.
func optNum(p *float64) string {
	if p == nil {
		return ""
	}
	return num(*p)
}

// fmtRatio formats a max/median ratio; nil is a median of 0 under a working shard, where
// the ratio has no value.
func fmtRatio(r *float64) string {
	if r == nil {
		return "n/a (the median shard is idle)"
	}
	return strconv.FormatFloat(*r, 'f', 2, 64) + "x"
}

// fmtFanout shows a request's mean fan-out (subrequests), its maximum when the mean is
// below it, and the mean partitions visited when that differs: "12", "7.4 max 12",
// "12 (125 parts)", "12 (7.5 parts)". A whole mean equal to the maximum is a count, written without decimals.
func fmtFanout(f Fanout) string {
	if f.Max <= 1 && f.Mean <= 1 {
		return strconv.FormatFloat(f.Mean, 'f', 0, 64)
	}
	s := fmt.Sprintf("%s max %d", strconv.FormatFloat(f.Mean, 'f', 1, 64), f.Max)
	if math.Abs(f.Mean-float64(f.Max)) < 0.005 {
		s = strconv.Itoa(f.Max)
	}
	if math.Abs(f.Partitions-f.Mean) > 0.05 {
		parts := strconv.FormatFloat(f.Partitions, 'f', 1, 64)
		if math.Abs(f.Partitions-math.Round(f.Partitions)) < 0.05 {
			parts = strconv.FormatFloat(math.Round(f.Partitions), 'f', 0, 64)
		}
		s += fmt.Sprintf(" (%s parts)", parts)
	}
	return s
}

func streamTable(v *VariantSummary) *table {
	t := &table{head: []string{"stream", "op", "offered", "completed", "errors", "p50 ms", "p99 ms", "p999 ms", "max ms", "fan-out"}, left: 2}
	// Beside percentiles that leave failed requests out, the share that failed
	// (completedNote says so under the table).
	failed := anyFailed(v)
	if failed {
		t.head = slices.Insert(t.head, 5, "error rate")
	}
	// A column of rows read per request, only when some scan reads rows.
	rows := slices.ContainsFunc(v.Streams, func(s StreamSummary) bool { return s.Rows != nil })
	if rows {
		t.head = append(t.head, "rows/req")
	}
	for _, s := range v.Streams {
		cells := []string{s.Name, s.Op, units.Count(s.Offered), units.Count(s.Completed), units.Count(s.Failed),
			fmtOptMs(s.Latency.P50), fmtOptMs(s.Latency.P99), fmtOptMs(s.Latency.P999), fmtOptMs(s.Latency.Max), fmtFanout(s.Fanout)}
		if failed {
			cells = slices.Insert(cells, 5, units.ShareOf(s.Failed, s.Offered, 1))
		}
		if rows {
			r := "-"
			if s.Rows != nil {
				r = fmtRows(s.Rows.Mean)
			}
			cells = append(cells, r)
		}
		t.add(cells...)
	}
	return t
}

// fmtRows shows the mean rows read per request: one decimal below 10, else a whole number
// with thousands separators ("4.5", "500", "86,400,000").
func fmtRows(x float64) string {
	if x < 10 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return units.Count(int64(math.Round(x)))
}

func heatLine(v *VariantSummary) string {
	k := v.Skew
	node := -1
	if sh := v.shardByID(k.HottestShard); sh != nil {
		node = sh.Node
	}
	line := fmt.Sprintf("hottest shard %s (node %d): %s load, median shard %s, skew %s",
		v.shardName(k.HottestShard), node, units.Percent(k.HottestLoad, 1), units.Percent(k.MedianLoad, 1), fmtRatio(k.MaxOverMedian))
	if movingHotSpot(k) {
		// The run's totals average a hot spot that moved from shard to shard (a key that
		// grows with time over splits that hold its future keys), or one that came and
		// went on one shard (a burst, an operator's fix): what the cluster saw at a time
		// leads.
		how := "moved from shard to shard (skew.csv, shards.csv), so over the run it evens out"
		if k.PeakHottestShard == k.HottestShard {
			how = "did not last (skew.csv, shards.csv), so over the run it averages out"
		}
		return fmt.Sprintf("busiest window %s: shard %s at %s, median %s; the hot spot %s: %s",
			k.PeakWindow, v.shardName(k.PeakHottestShard), units.Percent(k.PeakHottestLoad, 1), units.Percent(k.PeakMedianLoad, 1), how, line)
	}
	if k.PeakWindow != "" {
		line += fmt.Sprintf("; busiest window %s: shard %s at %s, median %s", k.PeakWindow, v.shardName(k.PeakHottestShard), units.Percent(k.PeakHottestLoad, 1), units.Percent(k.PeakMedianLoad, 1))
	}
	return line
}

// movingHotSpot says that the busiest window had a hot shard (at least diagnose.ShardHotLoad of
// its node's cores) at least diagnose.SkewRatio times as loaded as the run's hottest shard
// was over the run: the heat moved, and the run's figures hide it.
func movingHotSpot(k Skew) bool {
	return k.PeakWindow != "" && k.PeakHottestLoad >= diagnose.ShardHotLoad && k.PeakHottestLoad >= diagnose.SkewRatio*k.HottestLoad
}

// nodeLine names the hottest node and the limit nearest (as sweep and capacity name it).
func nodeLine(v *VariantSummary) string {
	n, b := v.HottestNode, v.Bottleneck
	limit := b.Text
	if b.Resource == "cpu" && b.Node != nil && *b.Node == n.ID {
		limit = "its cores"
	}
	return fmt.Sprintf("hottest node %d: %s load, %s in its busiest window; nearest limit: %s",
		n.ID, units.Percent(n.Utilization, 1), units.Percent(n.PeakUtilization, 1), limit)
}

// Text writes the human-readable tables: per variant the streams, then the shard heat
// summary and the spread of load, the client and cache counts, hot keys and partitions,
// latency outliers and the diagnosis (each when there is something to show), then the
// timeline of alerts and events.
func Text(w io.Writer, s *Summary) {
	fmt.Fprintf(w, "scenario %s, seed %d, %s simulated from %s\n", s.Scenario, s.Seed, units.Seconds(s.DurationS, units.Flag), s.Start)
	for i := range s.Variants {
		v := &s.Variants[i]
		fmt.Fprintf(w, "\n== %s\n   %s\n\n", v.Name, v.Key)
		streamTable(v).text(w, "   ")
		if note := completedNote(v); note != "" {
			fmt.Fprintf(w, "   %s\n", note)
		}
		fmt.Fprintf(w, "\n   %s\n", heatLine(v))
		fmt.Fprintf(w, "   %s\n", nodeLine(v))
		fmt.Fprintf(w, "   %s\n", spreadLine(v, i == 0))
		if note := stopNote(v); note != "" {
			fmt.Fprintf(w, "   %s\n", note)
		}
		for _, sec := range detailSections(v) {
			fmt.Fprintf(w, "\n   %s:\n", sec.title)
			if len(sec.t.rows) > 0 {
				sec.t.text(w, "   ")
			}
			for _, n := range sec.notes {
				fmt.Fprintf(w, "   %s\n", n)
			}
		}
		if len(v.Diagnosis) > 0 {
			fmt.Fprintln(w, "\n   diagnosis:")
			for _, d := range v.Diagnosis {
				fmt.Fprintf(w, "   - %s: %s\n", d.Kind, d.Message)
			}
		} else {
			fmt.Fprintln(w, "\n   diagnosis: "+diagnose.NoHotspot)
		}
		migrationText(w, v)
		rebalanceText(w, v)
		if tl := timeline(v); len(tl) > 0 {
			fmt.Fprintln(w, "\n   alerts:")
			tl, folded := foldTimeline(tl, maxTextAlerts)
			for _, e := range tl {
				msg := e.message
				if e.detection != "" {
					msg += " (" + e.detection + ")"
				}
				fmt.Fprintf(w, "   %-8s  %-17s  %s\n", e.at, e.kind, msg)
			}
			if len(folded) > 0 {
				fmt.Fprintf(w, "   ... %s left out here (report.md and summary.json list them)\n", metrics.Plural(int64(len(folded)), "alert"))
			}
		} else {
			fmt.Fprintln(w, "\n   no alerts")
		}
	}
	claimsText(w, s.Claims)
}

// maxTextAlerts is the most alerts the text output prints a variant (foldTimeline: actions
// and clearings first, then the earliest others, siblings merged); a run of hundreds of
// nodes can raise hundreds (report.md and summary.json keep them).
const maxTextAlerts = 40

// spreadLine says how evenly load was spread over the shards and the nodes over the run.
// The first variant's line says what Gini means (explain).
func spreadLine(v *VariantSummary, explain bool) string {
	k := v.Skew
	gini := "Gini"
	if explain {
		gini = "Gini (0: load spread evenly, 1: all of it on one)"
	}
	lead := ""
	if movingHotSpot(k) {
		// The busiest window's spread leads, as in heatLine.
		lead = fmt.Sprintf("spread in the busiest window: shards p95/p50 %s, %s %.2f; ", fmtSpreadRatio(k.PeakShardSpread.P95OverP50), gini, k.PeakShardSpread.Gini)
		gini = "Gini"
	}
	return lead + fmt.Sprintf("spread over the run: shards p95/p50 %s, %s %.2f; nodes max/median %s, p95/p50 %s, Gini %.2f",
		fmtSpreadRatio(k.ShardSpread.P95OverP50), gini, k.ShardSpread.Gini,
		fmtSpreadRatio(k.NodeSpread.MaxOverMedian), fmtSpreadRatio(k.NodeSpread.P95OverP50), k.NodeSpread.Gini)
}

// fmtSpreadRatio formats a ratio of loads; nil is a median of 0 under a working one, where
// the ratio has no value.
func fmtSpreadRatio(r *float64) string {
	if r == nil {
		return "n/a (median idle)"
	}
	return strconv.FormatFloat(*r, 'f', 2, 64) + "x"
}

// section is one optional table of a variant's details.
type section struct {
	title string
	t     *table
	notes []string
}

// standsOut is detect.StandsOut: run's key tables and analyze's list the same keys.
func standsOut(count, errBound int64) bool { return detect.StandsOut(count, errBound) }

// hotShown is how many hot keys and partitions per stream the tables show.
const hotShown = 5

// detailSections returns the variant's optional tables, each only when it has rows: client
// and cache counts, row locks, hot keys, hot partitions and latency outliers.
func detailSections(v *VariantSummary) []section {
	var out []section
	if client := clientTable(v); len(client.rows) > 0 {
		out = append(out, section{title: "client and cache", t: client, notes: retryNotes(v)})
	}
	if locks := lockTable(v); len(locks.rows) > 0 {
		out = append(out, section{title: "row locks (waits of write subrequests for their key's lock, in ms)", t: locks})
	}
	if waits := waitTable(v); len(waits.rows) > 0 {
		out = append(out, section{title: "mechanisms' waits (for a connection, a page latch, a commit flush; in ms)", t: waits})
	}
	keys, keyNotes, shown := hotKeyTable(v)
	if len(keys.rows) > 0 || len(keyNotes) > 0 {
		out = append(out, section{title: fmt.Sprintf("hot keys (top %d per stream; shares of a sample of its requests, counted by a bounded sketch)", hotShown), t: keys, notes: keyNotes})
	}
	if parts, notes := hotPartitionTable(v, shown); len(parts.rows) > 0 || len(notes) > 0 {
		out = append(out, section{title: "hot partitions", t: parts, notes: notes})
	}
	slow := &table{head: []string{"stream", "key", "samples", "mean ms", "x median key", "shard"}, left: 2}
	for _, o := range v.LatencyOutliers {
		slow.add(o.Stream, o.Key, units.Count(o.Samples), metrics.Ms(o.MeanMs), strconv.FormatFloat(o.Ratio, 'f', 1, 64), strconv.Itoa(o.Shard))
	}
	if len(slow.rows) > 0 {
		out = append(out, section{title: "latency outliers (keys whose sampled mean latency stands out)", t: slow})
	}
	return out
}

// clientTable lists the streams that retried, timed out, were throttled or limited, or
// used the cache.
func clientTable(v *VariantSummary) *table {
	client := &table{head: []string{"stream", "offered", "attempts", "retries", "timed out", "throttled", "limited", "cache hits", "hit ratio", "backend reads"}, left: 1}
	for _, st := range v.Streams {
		if st.Retries == 0 && st.TimedOut == 0 && st.Throttled == 0 && st.Limited == 0 && st.Cache == nil {
			continue
		}
		hits, ratio, backend := "-", "-", "-"
		if c := st.Cache; c != nil {
			hits, ratio, backend = units.Count(c.Hits), units.Percent(c.HitRatio, 1), units.Count(c.BackendReads)
		}
		client.add(st.Name, units.Count(st.Offered), units.Count(st.Attempts), units.Count(st.Retries), units.Count(st.TimedOut),
			units.Count(st.Throttled), units.Count(st.Limited), hits, ratio, backend)
	}
	return client
}

// hotKeyTable lists each stream's hot keys that stand out (hotShown at most), with a note
// for a stream none of whose keys does, and returns per stream the keys it showed, to
// spot hot partitions that repeat them.
func hotKeyTable(v *VariantSummary) (*table, []string, map[string]string) {
	keys := &table{head: []string{"stream", "key", "share", "~requests", "shard"}, left: 2}
	var notes []string
	shown := map[string]string{}
	for _, hk := range v.HotKeys {
		n := 0
		for _, k := range hk.Keys {
			if n == hotShown || !standsOut(k.Count, k.Error) {
				continue
			}
			n++
			keys.add(hk.Stream, k.Key, units.Percent(k.Share, 1), units.Count(metrics.Scaled(k.Count, hk.Counted, hk.Requests)), strconv.Itoa(k.Shard))
			shown[hk.Stream] += fmt.Sprintf("(%s) %d|", k.Key, k.Count)
		}
		if n == 0 {
			notes = append(notes, fmt.Sprintf("%s: no key stands out (every count is mostly the sketch's error bound, or too few hits of the sample to tell)", hk.Stream))
		}
	}
	return keys, notes, shown
}

// hotPartitionTable lists each write stream's hot partitions that stand out, unless they
// are its hot keys already shown, with a note of how many partitions it wrote.
func hotPartitionTable(v *VariantSummary, shown map[string]string) (*table, []string) {
	parts := &table{head: []string{"stream", "partition", "share", "~writes", "shard"}, left: 2}
	var notes []string
	for _, hp := range v.HotPartitions {
		var rows [][]string
		var same string
		for _, p := range hp.Partitions {
			if len(rows) == hotShown || !standsOut(p.Writes, p.Error) {
				continue
			}
			rows = append(rows, []string{hp.Stream, p.Partition, units.Percent(p.Share, 1), units.Count(metrics.Scaled(p.Writes, hp.Counted, hp.Writes)), strconv.Itoa(p.Shard)})
			same += fmt.Sprintf("%s %d|", p.Partition, p.Writes)
		}
		note := partitionNote(hp)
		if same != "" && same == shown[hp.Stream] {
			note += " (its hottest are its hot keys above)"
		} else {
			for _, r := range rows {
				parts.add(r...)
			}
		}
		notes = append(notes, note)
	}
	return parts, notes
}

// partitionNote says how many distinct partitions a stream wrote (among its sampled
// writes, when sampled), and until when they were counted.
func partitionNote(hp HotPartitions) string {
	noun := metrics.Noun(hp.PartitionsWritten, "partition")
	note := fmt.Sprintf("%s wrote %s distinct %s", hp.Stream, metrics.About(hp.PartitionsWritten, hp.Counted), noun)
	if hp.Counted < hp.Writes {
		note = fmt.Sprintf("%s: %s distinct %s among %s sampled writes", hp.Stream, metrics.About(hp.PartitionsWritten, hp.Counted), noun, units.Count(hp.Counted))
	}
	if hp.CountedUntil != "" {
		note += " issued before " + hp.CountedUntil + " (then the migration changed how its requests plan, and its partitions were no longer counted)"
	}
	return note
}

// entry is one line of the timeline: an alert or an event.
type entry struct {
	at        string
	atS       float64
	kind      string
	message   string
	detection string
	event     bool // an event (an action, a split, a move), not an alert
}

// timeline merges the variant's alerts and events in time order (alerts first on ties).
func timeline(v *VariantSummary) []entry {
	var out []entry
	for _, a := range v.Alerts {
		out = append(out, entry{at: a.At, atS: a.AtS, kind: a.Kind, message: a.Message, detection: a.Detection})
	}
	for _, e := range v.Events {
		out = append(out, entry{at: e.At, atS: e.AtS, kind: e.Kind, message: e.Message, event: true})
	}
	slices.SortStableFunc(out, func(a, b entry) int { return cmp.Compare(a.atS, b.atS) })
	return out
}

// Markdown writes the same tables as Markdown.
func Markdown(w io.Writer, s *Summary) {
	fmt.Fprintf(w, "# %s\n\nSeed %d, %s simulated from %s.\n", md(s.Scenario), s.Seed, units.Seconds(s.DurationS, units.Flag), md(s.Start))
	for i := range s.Variants {
		markdownVariant(w, &s.Variants[i], i == 0)
	}
}

func markdownVariant(w io.Writer, v *VariantSummary, first bool) {
	fmt.Fprintf(w, "\n## %s\n\n", md(v.Name))
	if v.Description != "" {
		fmt.Fprintf(w, "%s\n\n", md(v.Description))
	}
	fmt.Fprintf(w, "Key: %s.\n\n", md(v.Key))
	streamTable(v).markdown(w)
	if note := completedNote(v); note != "" {
		fmt.Fprintf(w, "\n%s.\n", md(capitalize(note)))
	}
	fmt.Fprintf(w, "\n%s.\n", md(capitalize(heatLine(v))))
	fmt.Fprintf(w, "%s.\n", md(capitalize(nodeLine(v))))
	fmt.Fprintf(w, "%s.\n", md(capitalize(spreadLine(v, first))))
	if note := stopNote(v); note != "" {
		fmt.Fprintf(w, "\n**%s**\n", md(note))
	}
	for _, sec := range detailSections(v) {
		fmt.Fprintf(w, "\n%s:\n\n", md(capitalize(sec.title)))
		if len(sec.t.rows) > 0 {
			sec.t.markdown(w)
			if len(sec.notes) > 0 {
				fmt.Fprintln(w)
			}
		}
		for _, n := range sec.notes { // notes begin with a stream's name: no capital
			fmt.Fprintf(w, "- %s.\n", md(n))
		}
	}
	if len(v.Diagnosis) > 0 {
		fmt.Fprintln(w, "\nDiagnosis:")
		fmt.Fprintln(w)
		for _, d := range v.Diagnosis {
			fmt.Fprintf(w, "- **%s**: %s.\n", md(d.Kind), md(d.Message))
		}
		if v.DiagnosisMore > 0 {
			fmt.Fprintf(w, "- and %s more, not listed.\n", units.Count(int64(v.DiagnosisMore)))
		}
	} else {
		fmt.Fprintln(w, "\nDiagnosis: "+diagnose.NoHotspot+".")
	}
	migrationMarkdown(w, v)
	rebalanceMarkdown(w, v)
	if tl := timeline(v); len(tl) > 0 {
		fmt.Fprintln(w, "\nAlert timeline: each alert at the end of the window in which its detector fired, with its lag from the onset of the trouble, "+
			"the start of the first window of the latest run of windows in which a node was above 90% of its cores "+
			"(the alert's own node for node_cpu and hot_shard, any node for the others); events at the moment they happened.")
		fmt.Fprintln(w, "\n| at | kind | what | detection |\n| --- | --- | --- | --- |")
		for _, e := range tl {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", escape.MarkdownCell(e.at), escape.MarkdownCell(e.kind), escape.MarkdownCell(e.message), escape.MarkdownCell(e.detection))
		}
		if v.AlertsMore+v.EventsMore > 0 {
			fmt.Fprintf(w, "\nAnd %s later alerts and %s later events, not listed.\n", units.Count(int64(v.AlertsMore)), units.Count(int64(v.EventsMore)))
		}
	}
}

// md is escape.MarkdownText: every sentence of the Markdown outputs may hold a name or a
// value from the scenario or its run, so each passes through it whole.
func md(s string) string { return escape.MarkdownText(s) }

// capitalize upper-cases a sentence's first letter, if it is a lower-case ASCII letter.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// CSV writes one row per variant and stream with the stream table's columns; an absent
// latency (nothing completed) is an empty cell. The columns added later (limited, failed
// over every cause, error rate 0..1, then lock: failed by lock_timeout, the last cause)
// come last, so scripts reading by position still work.
func CSV(w io.Writer, s *Summary) error {
	cw := escape.NewCSVWriter(w)
	cw.Write([]string{"variant", "stream", "op", "offered", "completed", "rejected", "throttled", "timed_out",
		"mean_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "fanout_mean", "fanout_max", "partitions_mean",
		"limited", "failed", "error_rate", "lock"})
	for _, v := range s.Variants {
		for _, st := range v.Streams {
			l := st.Latency
			cw.Write([]string{v.Name, st.Name, st.Op, rawCount(st.Offered), rawCount(st.Completed), rawCount(st.Rejected),
				rawCount(st.Throttled), rawCount(st.TimedOut), optNum(l.Mean), optNum(l.P50), optNum(l.P95), optNum(l.P99), optNum(l.P999),
				optNum(l.Max), num(st.Fanout.Mean), strconv.Itoa(st.Fanout.Max), num(st.Fanout.Partitions),
				rawCount(st.Limited), rawCount(st.Failed), num(units.Round(st.ErrorRate, 6)), rawCount(st.LockFailed)})
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
		return fmt.Sprintf("SATURATED at %s: %s were waiting and the backlog kept growing, so the run stopped there; the figures (loads included) cover its first %s.",
			v.Saturated.At, metrics.Plural(int64(v.Saturated.Backlog), "subrequest"), units.Seconds(v.ElapsedS, units.Elapsed))
	case v.Partial:
		return fmt.Sprintf("PARTIAL: the run was interrupted; the figures (loads included) cover its first %s.", units.Seconds(v.ElapsedS, units.Elapsed))
	}
	return ""
}

// lockTable is the locked streams' waits for their row locks, and the key they queued
// for most.
func lockTable(v *VariantSummary) *table {
	t := &table{head: []string{"stream", "writes", "queued", "mean wait", "p99 wait", "max wait", "lock failures", "hottest lock", "queued there", "shard", "hot row load"}, left: 1}
	for _, st := range v.Streams {
		l := st.Lock
		if l == nil {
			continue
		}
		key, queued, shard := "-", "-", "-"
		if len(l.HotKeys) > 0 {
			h := l.HotKeys[0]
			key, queued, shard = h.Key, units.Count(h.Queued), strconv.Itoa(h.Shard)
		}
		t.add(st.Name, units.Count(l.Waits), units.Percent(l.QueuedShare, 1), fmtOptMs(l.WaitMs.Mean), fmtOptMs(l.WaitMs.P99), fmtOptMs(l.WaitMs.Max),
			units.Count(l.TimedOut), key, queued, shard, units.Percent(l.HotRowLoad, 1))
	}
	return t
}

// waitTable is the waits the mechanisms made the streams' work take before service: a
// row per stream and mechanism.
func waitTable(v *VariantSummary) *table {
	t := &table{head: []string{"stream", "waiting for", "of", "went through", "waited", "mean wait", "p99 wait", "max wait"}, left: 3}
	for _, st := range v.Streams {
		for _, w := range st.Waits {
			t.add(st.Name, w.Name, w.Of, units.Count(w.Asked), units.Percent(w.QueuedShare, 1), fmtOptMs(w.WaitMs.Mean), fmtOptMs(w.WaitMs.P99), fmtOptMs(w.WaitMs.Max))
		}
	}
	return t
}

// retryNotes says, for each stream whose retries the scenario names (retry_label), how
// many it sent after the warmup and when: "payment_callback: 1,372,358 duplicate charge
// attempts (retries), sent in the windows from 08:16 to 08:59, the most (45,120) at 08:30".
func retryNotes(v *VariantSummary) []string {
	var out []string
	for _, st := range v.Streams {
		if st.RetryLabel == "" || st.Retried == nil {
			continue
		}
		r := st.Retried
		when := fmt.Sprintf("in the window of %s", r.From)
		if r.To != r.From {
			when = fmt.Sprintf("in the windows from %s to %s, the most (%s) at %s", r.From, r.To, units.Count(r.PeakCount), r.Peak)
		}
		out = append(out, fmt.Sprintf("%s: %s %s (retries), sent %s", st.Name, units.Count(st.Retries), st.RetryLabel, when))
	}
	return out
}
