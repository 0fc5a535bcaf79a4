package report

import (
	"io"
	"iter"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Series says in which formats WriteFilesAs writes the per-window series (streams,
// shards, nodes, skew): CSV, Parquet or both (docs/outputs.md).
type Series int

const (
	SeriesCSV Series = 1 << iota
	SeriesParquet
	SeriesBoth = SeriesCSV | SeriesParquet
)

// ParseSeries reads a --series value other than auto: csv, parquet or both.
func ParseSeries(s string) (Series, bool) {
	switch s {
	case "csv":
		return SeriesCSV, true
	case "parquet":
		return SeriesParquet, true
	case "both":
		return SeriesBoth, true
	}
	return 0, false
}

// String is the --series value of s.
func (s Series) String() string {
	switch s {
	case SeriesCSV:
		return "csv"
	case SeriesParquet:
		return "parquet"
	case SeriesBoth:
		return "both"
	}
	return strconv.Itoa(int(s))
}

// ext is the extension the series' files are named with in report.md: parquet when
// they are written only as Parquet.
func (s Series) ext() string {
	if s == SeriesParquet {
		return "parquet"
	}
	return "csv"
}

// The Parquet files hold the CSV files' columns, with the same names and the same
// numbers, typed: counts int64, ids and queue lengths int32, loads, times and ratios
// double (the CSV's rounded values), an empty CSV cell a null. Rows come in the CSV's
// order (variant, then window, then stream, shard or node), so each row group (at most
// parquetRowGroupRows rows, whole windows of one variant) is sorted by t_s and then by
// the id: one window across shards is one row group, and one shard over time is one
// narrow page per row group, which readers find from the pages' min and max (the page
// index). Columns are zstd-compressed; strings that repeat (variant, window_start,
// stream) are dictionary-encoded.

// parquetRowGroupRows is the most rows a row group holds, unless one window has more.
const parquetRowGroupRows = 1 << 20

type streamRow struct {
	Variant      string   `parquet:"variant,dict"`
	WindowStart  string   `parquet:"window_start,dict"`
	TS           float64  `parquet:"t_s"`
	Stream       string   `parquet:"stream,dict"`
	Completed    int64    `parquet:"completed"`
	Errors       int64    `parquet:"errors"`
	P50Ms        *float64 `parquet:"p50_ms,optional"`
	P99Ms        *float64 `parquet:"p99_ms,optional"`
	MaxMs        *float64 `parquet:"max_ms,optional"`
	Throttled    int64    `parquet:"throttled"`
	TimedOut     int64    `parquet:"timed_out"`
	Retries      int64    `parquet:"retries"`
	BackendReads int64    `parquet:"backend_reads"`
	Offered      int64    `parquet:"offered"`
	Rejected     int64    `parquet:"rejected"`
	Limited      int64    `parquet:"limited"`
	Lock         int64    `parquet:"lock"`
}

type shardRow struct {
	Variant     string   `parquet:"variant,dict"`
	WindowStart string   `parquet:"window_start,dict"`
	TS          float64  `parquet:"t_s"`
	Shard       int32    `parquet:"shard,delta"`
	Node        int32    `parquet:"node"`
	Ops         int64    `parquet:"ops"`
	Utilization float64  `parquet:"utilization"`
	MaxQueue    int32    `parquet:"max_queue"`
	RunP99Ms    *float64 `parquet:"run_p99_ms,optional"`
	RunFailures int64    `parquet:"run_failures"`
}

type nodeRow struct {
	Variant     string  `parquet:"variant,dict"`
	WindowStart string  `parquet:"window_start,dict"`
	TS          float64 `parquet:"t_s"`
	Node        int32   `parquet:"node,delta"`
	Utilization float64 `parquet:"utilization"`
	MaxQueue    int32   `parquet:"max_queue"`
}

type skewRow struct {
	Variant            string   `parquet:"variant,dict"`
	WindowStart        string   `parquet:"window_start,dict"`
	TS                 float64  `parquet:"t_s"`
	ShardMax           float64  `parquet:"shard_max"`
	ShardMedian        float64  `parquet:"shard_median"`
	ShardMaxOverMedian *float64 `parquet:"shard_max_over_median,optional"`
	ShardP95OverP50    *float64 `parquet:"shard_p95_over_p50,optional"`
	ShardGini          float64  `parquet:"shard_gini"`
	NodeMax            float64  `parquet:"node_max"`
	NodeMedian         float64  `parquet:"node_median"`
	NodeMaxOverMedian  *float64 `parquet:"node_max_over_median,optional"`
	NodeP95OverP50     *float64 `parquet:"node_p95_over_p50,optional"`
	NodeGini           float64  `parquet:"node_gini"`
}

// seriesParquet writes one series as Parquet: rows fills a window's rows of a variant (in
// the order of the CSV's) into buf and returns it. The rows of a row group are written
// together, and a row group ends with a variant or when the next window would pass
// parquetRowGroupRows.
func seriesParquet[T any](out io.Writer, sc *metrics.Scenario, runs iter.Seq[Run], by string, rows func(run Run, win int, lead windowLead, buf []T) ([]T, error)) error {
	order := []parquet.SortingColumn{parquet.Ascending("t_s")}
	if by != "" {
		order = append(order, parquet.Ascending(by))
	}
	w := parquet.NewGenericWriter[T](out,
		parquet.Compression(&zstd.Codec{Level: zstd.SpeedFastest}),
		parquet.CreatedBy("shardsim", "", ""),
		parquet.MaxRowsPerRowGroup(1<<40), // row groups end where this function flushes
		parquet.SkipPageBounds("variant"),
		parquet.SkipPageBounds("window_start"),
		parquet.SortingWriterConfig(parquet.SortingColumns(order...)))
	var buf []T
	for run := range runs {
		r := run.Result
		pending := 0
		for win := range coveredWindows(r) {
			t := sim.Time(win) * r.Window
			var err error
			buf, err = rows(run, win, windowLead{run.Variant.Name, units.Clock(sc.Start, t, units.TimeOfDay), t.Seconds()}, buf[:0])
			if err != nil {
				return err
			}
			if pending > 0 && pending+len(buf) > parquetRowGroupRows {
				if err := w.Flush(); err != nil {
					return err
				}
				pending = 0
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
			pending += len(buf)
		}
		if pending > 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	return w.Close()
}

// windowLead is the first three columns of a window's rows, as the CSV writes them (its
// t_s is num(ts), which prints the shortest text that reads back as ts).
type windowLead struct {
	variant, start string
	ts             float64
}

func streamsParquet(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run]) error {
	return seriesParquet(w, sc, runs, "stream", func(run Run, win int, l windowLead, buf []streamRow) ([]streamRow, error) {
		r := run.Result
		ts := l.ts
		for i := range r.Streams {
			wl := &r.Streams[i].Win[win]
			f := metrics.WindowFailures(wl)
			buf = append(buf, streamRow{Variant: l.variant, WindowStart: l.start, TS: ts, Stream: r.Streams[i].Name,
				Completed: wl.Completed, Errors: wl.Errors,
				P50Ms: optMs(metrics.WindowQuantile(wl, 0.5)), P99Ms: optMs(metrics.WindowQuantile(wl, 0.99)), MaxMs: optMs(windowMax(wl)),
				Throttled: f[metrics.Throttled], TimedOut: wl.TimedOut, Retries: wl.Retries, BackendReads: metrics.BackendReadsIn(r, i, win),
				Offered: metrics.StreamWindowOf(r, i, win).Offered, Rejected: wl.Rejected, Limited: wl.Limited, Lock: f[metrics.Lock]})
		}
		return buf, nil
	})
}

// shardsParquet writes shards.parquet; a streamed run's rows come from its spool.
func shardsParquet(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run]) error {
	var (
		last    *sim.Result
		p99     []*float64
		fails   []int64
		spooled *spoolReader
	)
	defer func() {
		if spooled != nil {
			spooled.close()
		}
	}()
	return seriesParquet(w, sc, runs, "shard", func(run Run, win int, l windowLead, buf []shardRow) ([]shardRow, error) {
		r := run.Result
		if r != last {
			last = r
			shards := metrics.Of(r).Shards
			p99, fails = make([]*float64, len(shards)), make([]int64, len(shards))
			for s := range shards {
				p99[s], fails[s] = optMs(shards[s].P99), shards[s].Failures
			}
			if spooled != nil {
				spooled.close()
				spooled = nil
			}
			if k, ok := r.Sink.(*StreamSink); ok && r.Streamed {
				var err error
				if spooled, err = k.reader(); err != nil {
					return nil, err
				}
			}
		}
		ts := l.ts
		for s := range r.Shards {
			row := shardRow{Variant: l.variant, WindowStart: l.start, TS: ts, Shard: int32(s), Node: int32(r.Shards[s].Node),
				RunP99Ms: p99[s], RunFailures: fails[s]}
			if spooled != nil {
				c, err := spooled.next()
				if err != nil {
					return nil, err
				}
				row.Ops, row.Utilization, row.MaxQueue = c.ops, c.util, c.maxQueue
			} else {
				i := win*len(r.Shards) + s
				row.Ops, row.Utilization, row.MaxQueue = r.ShardOps[i], metrics.Util(r.ShardUtilization(win, s)), r.ShardMaxQueue[i]
			}
			buf = append(buf, row)
		}
		return buf, nil
	})
}

func nodesParquet(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run]) error {
	return seriesParquet(w, sc, runs, "node", func(run Run, win int, l windowLead, buf []nodeRow) ([]nodeRow, error) {
		r := run.Result
		ts := l.ts
		for n := range r.Nodes {
			buf = append(buf, nodeRow{Variant: l.variant, WindowStart: l.start, TS: ts, Node: int32(n),
				Utilization: metrics.Util(r.NodeUtilization(win, n)), MaxQueue: r.NodeMaxQueue[win*len(r.Nodes)+n]})
		}
		return buf, nil
	})
}

func skewParquet(w io.Writer, sc *metrics.Scenario, runs iter.Seq[Run]) error {
	opt := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		x := units.Round(*p, 3)
		return &x
	}
	return seriesParquet(w, sc, runs, "", func(run Run, win int, l windowLead, buf []skewRow) ([]skewRow, error) {
		ws := metrics.WindowSpreadOf(run.Result, win)
		sh, nd := ws.Shards, ws.Nodes
		return append(buf, skewRow{Variant: l.variant, WindowStart: l.start, TS: l.ts,
			ShardMax: metrics.Util(sh.Max), ShardMedian: metrics.Util(sh.Median), ShardMaxOverMedian: opt(sh.MaxOverMedian), ShardP95OverP50: opt(sh.P95OverP50), ShardGini: units.Round(sh.Gini, 4),
			NodeMax: metrics.Util(nd.Max), NodeMedian: metrics.Util(nd.Median), NodeMaxOverMedian: opt(nd.MaxOverMedian), NodeP95OverP50: opt(nd.P95OverP50), NodeGini: units.Round(nd.Gini, 4)}), nil
	})
}
