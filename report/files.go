package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// WriteFiles writes summary.json, streams.csv, shards.csv, nodes.csv, skew.csv and report.md into
// dir (created if needed) and returns their paths. report.md embeds charts, which must
// already be in dir.
func WriteFiles(dir string, sc *metrics.Scenario, runs []Run, sum *Summary, charts []Chart) ([]string, error) {
	return WriteFilesAs(dir, sc, runs, sum, charts, SeriesCSV)
}

// WriteFilesAs is WriteFiles with the per-window series (streams, shards, nodes, skew)
// written as series says: CSV, Parquet or both (docs/outputs.md).
func WriteFilesAs(dir string, sc *metrics.Scenario, runs []Run, sum *Summary, charts []Chart, series Series) ([]string, error) {
	return writeFiles(dir, sc, runs, sum, charts, series, nil)
}

// WriteFilesAfter is WriteFilesAs for a run whose series files sw has been writing as its
// variants finished (StartSeries): it waits for them, and writes the other files. The
// paths come in WriteFilesAs's order.
func WriteFilesAfter(sw *SeriesWriter, sc *metrics.Scenario, runs []Run, sum *Summary, charts []Chart) ([]string, error) {
	if !sw.complete() { // its files would wait for ever
		sw.Abort()
		return nil, errors.New("report: the series files were asked for before every variant had finished")
	}
	return writeFiles(sw.dir, sc, runs, sum, charts, sw.series, sw)
}

// seriesFile is one per-window series file and the function that writes it from the
// runs, in the order of their variants.
type seriesFile struct {
	name  string
	write func(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run]) error
}

// seriesFiles are the series files series asks for, in the order they are listed.
func seriesFiles(series Series) []seriesFile {
	var fs []seriesFile
	if series&SeriesCSV != 0 {
		fs = append(fs, seriesFile{"streams.csv", streamsCSV}, seriesFile{"shards.csv", shardsCSV},
			seriesFile{"nodes.csv", nodesCSV}, seriesFile{"skew.csv", skewCSV})
	}
	if series&SeriesParquet != 0 {
		fs = append(fs, seriesFile{"streams.parquet", streamsParquet}, seriesFile{"shards.parquet", shardsParquet},
			seriesFile{"nodes.parquet", nodesParquet}, seriesFile{"skew.parquet", skewParquet})
	}
	return fs
}

// writeFiles writes WriteFilesAs's files; the series files are sw's when sw is not nil.
func writeFiles(dir string, sc *metrics.Scenario, runs []Run, sum *Summary, charts []Chart, series Series, sw *SeriesWriter) ([]string, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil { // the umask decides, as for mkdir(1)
		return nil, err
	}
	type file struct {
		name  string
		write func(io.Writer) error
	}
	files := []file{{"summary.json", func(w io.Writer) error { return JSON(w, sum) }}}
	for _, f := range seriesFiles(series) {
		files = append(files, file{f.name, func(w io.Writer) error { return f.write(w, sc, slices.Values(runs)) }})
	}
	files = append(files, file{"report.md", func(w io.Writer) error { reportMarkdown(w, sc, sum, charts, series.ext()); return nil }})
	if hasDetail(runs) {
		files = append(files, file{"streams-detail.csv", func(w io.Writer) error { return streamsDetailCSV(w, sc, runs) }})
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if sw != nil && sw.has(f.name) {
			if err := sw.wait(f.name); err != nil {
				return paths, err
			}
			paths = append(paths, p)
			continue
		}
		// Written as made, not built whole first: the series files of a large run take
		// gigabytes.
		if err := atomicfile.WriteWith(p, f.write); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// seriesCSV writes one CSV with a header and, per variant and window, the rows row returns.
func seriesCSV(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run], head []string, rows func(r *sim.Result, win int) [][]string) error {
	cw := escape.NewCSVWriter(w)
	cw.Write(append([]string{"variant", "window_start", "t_s"}, head...))
	return seriesRows(cw, sc, runs, rows)
}

// seriesRows writes seriesCSV's rows.
func seriesRows(cw *escape.CSVWriter, sc *metrics.Scenario, runs iter.Seq[Run], rows func(r *sim.Result, win int) [][]string) error {
	for run := range runs {
		r := run.Result
		for win := range coveredWindows(r) {
			t := sim.Time(win) * r.Window
			lead := []string{run.Variant.Name, units.Clock(sc.Start, t, units.TimeOfDay), num(t.Seconds())}
			for _, row := range rows(r, win) {
				cw.Write(append(append([]string(nil), lead...), row...))
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// coveredWindows is how many of r's windows the run simulated, whole or in part: all of
// them, or, for a run that stopped early (interrupted or saturated), those that begin
// before Elapsed. The series files hold no rows for the windows after, which the run
// never simulated (their zeros would read as windows in which nothing was offered).
func coveredWindows(r *sim.Result) int {
	if r.Window <= 0 || r.Elapsed >= sim.Time(r.Windows)*r.Window {
		return r.Windows
	}
	return min(r.Windows, int((r.Elapsed+r.Window-1)/r.Window))
}

func streamsCSV(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run]) error {
	// A window in which nothing completed has empty latency cells, and no quantile is
	// above the window's max (metrics.WindowQuantile). The columns after max_ms break errors down and count what the mitigations did;
	// they are appended so that scripts reading the first columns by position still work.
	// offered counts the requests issued in the window, where completed and errors count
	// those answered in it; rejected, limited and lock (failed by lock_timeout) complete,
	// with throttled and timed_out, the errors by cause (docs/scenario.md,
	// "What the numbers mean").
	return seriesCSV(w, sc, runs, []string{"stream", "completed", "errors", "p50_ms", "p99_ms", "max_ms",
		"throttled", "timed_out", "retries", "backend_reads", "offered", "rejected", "limited", "lock"},
		func(r *sim.Result, win int) [][]string {
			var out [][]string
			for i := range r.Streams {
				wl := &r.Streams[i].Win[win]
				f := metrics.WindowFailures(wl)
				out = append(out, []string{r.Streams[i].Name, rawCount(wl.Completed), rawCount(wl.Errors),
					optNum(optMs(metrics.WindowQuantile(wl, 0.5))), optNum(optMs(metrics.WindowQuantile(wl, 0.99))), optNum(optMs(windowMax(wl))),
					rawCount(f[metrics.Throttled]), rawCount(wl.TimedOut), rawCount(wl.Retries), rawCount(metrics.BackendReadsIn(r, i, win)),
					rawCount(metrics.StreamWindowOf(r, i, win).Offered), rawCount(wl.Rejected), rawCount(wl.Limited), rawCount(f[metrics.Lock])})
			}
			return out
		})
}

// windowMax is the largest latency completed in a window, in ms, or nil when nothing
// completed in it.
func windowMax(wl *sim.WindowLatency) *float64 {
	if wl.Completed == 0 {
		return nil
	}
	x := wl.Max.Millis()
	return &x
}

func shardsCSV(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run]) error {
	// The last two columns are the shard's figures over the whole run (metrics.Shard: the
	// p99 of its subrequests' time at the node, and the subrequests it refused), the same
	// on each of its rows: a per-window histogram per shard would cost too much memory.
	// They are appended, so scripts reading the first columns by position still work.
	// A streamed run's rows come from its spool (streamedShardsCSV), the same bytes.
	var last *sim.Result
	var shards []metrics.Shard
	cw := escape.NewCSVWriter(w)
	cw.Write([]string{"variant", "window_start", "t_s", "shard", "node", "ops", "utilization", "max_queue", "run_p99_ms", "run_failures"})
	for run := range runs {
		if k, ok := run.Result.Sink.(*StreamSink); ok && run.Result.Streamed {
			cw.Flush()
			if err := streamedShardsCSV(w, sc, run, k); err != nil {
				return err
			}
			continue
		}
		if err := seriesRows(cw, sc, slices.Values([]Run{run}), func(r *sim.Result, win int) [][]string {
			if r != last {
				last, shards = r, metrics.Of(r).Shards
			}
			out := make([][]string, len(r.Shards))
			for s := range r.Shards {
				i := win*len(r.Shards) + s
				out[s] = []string{strconv.Itoa(s), strconv.Itoa(r.Shards[s].Node), rawCount(r.ShardOps[i]),
					num(metrics.Util(r.ShardUtilization(win, s))), strconv.Itoa(int(r.ShardMaxQueue[i])),
					optNum(optMs(shards[s].P99)), rawCount(shards[s].Failures)}
			}
			return out
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func nodesCSV(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run]) error {
	return seriesCSV(w, sc, runs, []string{"node", "utilization", "max_queue"},
		func(r *sim.Result, win int) [][]string {
			out := make([][]string, len(r.Nodes))
			for n := range r.Nodes {
				out[n] = []string{strconv.Itoa(n), num(metrics.Util(r.NodeUtilization(win, n))),
					strconv.Itoa(int(r.NodeMaxQueue[win*len(r.Nodes)+n]))}
			}
			return out
		})
}

// ReportMarkdown writes report.md: the scenario's story, the shard load bars of every
// variant, then per variant its tables and heat chart, then each stream's latency charts.
// Each chart comes with a sentence on how to read it.
func ReportMarkdown(w io.Writer, sc *metrics.Scenario, s *Summary, charts []Chart) {
	reportMarkdown(w, sc, s, charts, "csv")
}

// reportMarkdown is ReportMarkdown naming the series files with extension ext.
func reportMarkdown(w io.Writer, sc *metrics.Scenario, s *Summary, charts []Chart, ext string) {
	markdownHead(w, s, ext)
	if len(s.Claims) > 0 {
		fmt.Fprintln(w, "\n## What the story says, and what the run measures")
		fmt.Fprintln(w, "\nThe scenario's claims, each tested against a figure of the run (summary.json's claims).")
		fmt.Fprintln(w)
		claimTable(s.Claims).markdown(w)
	}
	if bars := chartsNamed(charts, "shard-load."); len(bars) > 0 {
		fmt.Fprintln(w, "\n## Where the load went")
		embedChart(w, bars[0])
	}
	for i := range s.Variants {
		markdownVariant(w, &s.Variants[i], i == 0)
		hottestShardsMarkdown(w, &s.Variants[i], ext)
		for _, c := range chartsNamed(charts, fmt.Sprintf("heat-%d-", i+1)) {
			embedChart(w, c)
		}
	}
	if len(s.Variants) > 0 && len(charts) > 0 {
		latencyChartsMarkdown(w, s.Variants[0].Streams, charts)
	}
	if hasAlerts(s) {
		fmt.Fprint(w, detectionNote)
	}
}

// markdownHead writes report.md's title, the scenario's description and what the run
// covered, and where the series files are.
func markdownHead(w io.Writer, s *Summary, ext string) {
	fmt.Fprintf(w, "# %s\n\n", md(s.Scenario))
	if s.Description != "" {
		fmt.Fprintf(w, "%s\n\n", md(strings.Join(strings.Fields(s.Description), " ")))
	}
	warmup := "there is no warmup: every request counts in the latency figures"
	if s.WarmupS > 0 {
		warmup = fmt.Sprintf("the first %s are warmup and left out of the latency figures", units.Seconds(s.WarmupS, units.Flag))
	}
	fmt.Fprintf(w, "Simulated %s from %s (seed %d); %s. ", units.Seconds(s.DurationS, units.Flag), md(s.Start), s.Seed, warmup)
	fmt.Fprintf(w, "Loads are CPU time spent on a shard's requests as a share of its node's cores; "+
		"latencies are measured at the client, network and queueing included. "+
		"The per-window series are in streams.%[1]s, shards.%[1]s, nodes.%[1]s and skew.%[1]s; every figure is in summary.json.\n", ext)
}

// chartsNamed returns the charts whose file names start with prefix.
func chartsNamed(charts []Chart, prefix string) []Chart {
	var out []Chart
	for _, c := range charts {
		if strings.HasPrefix(c.File, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// embedChart shows chart c with its caption. The file name is shardsim's (a slug:
// letters, digits and dashes); the title names a stream or a variant.
func embedChart(w io.Writer, c Chart) {
	fmt.Fprintf(w, "\n![%s](%s)\n\n%s\n", md(c.Title), c.File, md(c.Caption))
}

// hottestShardsMarkdown writes the table of v's five hottest shards over the run.
func hottestShardsMarkdown(w io.Writer, v *VariantSummary, ext string) {
	fmt.Fprintln(w, "\nThe five hottest shards over the whole run:")
	fmt.Fprintln(w)
	t := &table{head: []string{"shard", "node", "load", "peak window load", "ops", "rows written"}, left: 0}
	for _, sh := range topShards(v.Shards, 5) {
		t.add(v.shardName(sh.ID), strconv.Itoa(sh.Node), units.Percent(sh.Utilization, 1), units.Percent(sh.PeakUtilization, 1), units.Count(sh.Ops), units.Count(sh.Rows))
	}
	t.markdown(w)
	if v.ShardsMore > 0 {
		fmt.Fprintf(w, "\nAnd %s more shards in shards.%s; summary.json lists the %s hottest.\n",
			units.Count(int64(len(v.Shards)+v.ShardsMore-min(5, len(v.Shards)))), ext, units.Count(int64(len(v.Shards))))
	}
}

// latencyChartsMarkdown embeds each stream's latency charts, in this order whatever their
// file names: p99, p99 in detail, CDF, backend reads.
func latencyChartsMarkdown(w io.Writer, streams []StreamSummary, charts []Chart) {
	fmt.Fprintln(w, "\n## Latency by stream")
	for i, st := range streams {
		fmt.Fprintf(w, "\n### %s\n", escape.MarkdownText(st.Name))
		for _, kind := range []string{"p99-", "p99-detail-", "cdf-", "backend-"} {
			for _, c := range charts {
				if c.stream == i+1 && strings.HasPrefix(c.File, kind) && (kind != "p99-" || !strings.HasPrefix(c.File, "p99-detail-")) {
					embedChart(w, c)
				}
			}
		}
	}
}

func hasAlerts(s *Summary) bool {
	for _, v := range s.Variants {
		if len(v.Alerts) > 0 {
			return true
		}
	}
	return false
}

// detectionNote explains, in report.md, how each alert's detection lag is measured.
const detectionNote = `
## How the alerts' lags are measured

Every detector judges whole windows, so an alert appears at the end of the window in which
its condition held. Each alert also says how long after the trouble began it fired, measured
from one line for all kinds so that they can be compared: the onset is the start of the first
window of the latest unbroken run of windows, up to the alert's, in which a node ran above 90%
of its cores.

| kind | fires at the end of the first window in which | onset measured on |
| --- | --- | --- |
| node_cpu | the node is above 90% of its cores (it clears below 80%) | that node: the lag is one window |
| hot_shard | the shard is above 90% of its node's cores and 3 times the median shard | the node serving the shard |
| latency | the stream's p99 passes one of its SLO thresholds | any node |
| errors, throttled, timed_out | the stream had requests rejected (full queue or client limit), throttled by a partition limit, or timed out | any node |
| saturated | the backlog passed the engine's bound (at that moment) | any node |

When no node was above the line before an alert (throttling under a partition limit, say), its
own window is its onset and its lag is one window. A p99 alert that fires ten minutes after its
node's CPU alert tells you how much warning a CPU alert would have given.
`

// topShards returns up to n shards by utilization, hottest first (lower id on ties).
func topShards(shards []ShardSummary, n int) []ShardSummary {
	s := slices.Clone(shards)
	slices.SortStableFunc(s, func(a, b ShardSummary) int { return cmp.Compare(b.Utilization, a.Utilization) })
	return s[:min(n, len(s))]
}

// hasDetail reports whether the runs kept fine windows (a detail range inside the run).
func hasDetail(runs []Run) bool {
	return len(runs) > 0 && runs[0].Result.Detail.FineWindows() > 0
}

// streamsDetailCSV writes each stream's fine windows over the detail range: the requests
// that completed in each and their p99 (metrics.FineWindowsOf), empty when none did.
func streamsDetailCSV(w io.Writer, sc *metrics.Scenario, runs []Run) error {
	cw := escape.NewCSVWriter(w)
	cw.Write([]string{"variant", "window_start", "t_s", "stream", "completed", "p99_ms"})
	for _, run := range runs {
		r := run.Result
		fine := make([][]metrics.FineWindow, len(r.Streams))
		for i := range r.Streams {
			fine[i] = metrics.FineWindowsOf(r, i)
		}
		for k := range r.Detail.FineWindows() {
			t := r.Detail.FineStart(k)
			for i := range r.Streams {
				fw := fine[i][k]
				cw.Write([]string{run.Variant.Name, units.Clock(sc.Start, t, units.TimeOfDay), num(t.Seconds()), r.Streams[i].Name,
					rawCount(fw.Completed), optNum(optMs(fw.P99))})
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
