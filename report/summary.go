package report

import (
	"cmp"
	"slices"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// Summary is summary.json (docs/scenario.md, "What the numbers mean"). It holds no wall-clock
// figures, so one seed gives one file, byte for byte. Latencies are milliseconds, utilizations
// fractions 0..1.
type Summary struct {
	Scenario    string  `json:"scenario"`
	Description string  `json:"description,omitempty"`
	Seed        uint64  `json:"seed"`
	DurationS   float64 `json:"duration_s"`
	WarmupS     float64 `json:"warmup_s"`
	WindowS     float64 `json:"window_s"`
	Start       string  `json:"start"`
	// Partial marks results of a run that was interrupted before it finished.
	Partial  bool             `json:"partial"`
	Variants []VariantSummary `json:"variants"`
	// Claims are the scenario's [[claims]] beside what the run measured (claims.go).
	Claims []ClaimResult `json:"claims,omitempty"`
}

// Saturation says that a variant's backlog grew past the engine's bound: its offered load
// exceeds what its nodes serve, and the run stopped at that time.
type Saturation struct {
	At      string  `json:"at"`
	AtS     float64 `json:"at_s"`
	Backlog int     `json:"backlog"`
}

// VariantSummary is one variant's results.
type VariantSummary struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Key         string          `json:"key"`
	Streams     []StreamSummary `json:"streams"`
	Shards      []ShardSummary  `json:"shards"`
	Nodes       []NodeSummary   `json:"nodes"`
	Skew        Skew            `json:"skew"`
	// ErrorRate is failed over offered requests of every stream and cause (0..1); the
	// hottest node is the node with the highest utilization over the run; Bottleneck is
	// what binds the run, or would bind it first as load grows (metrics.BottleneckOf, as
	// sweep and capacity name it; a run alone judges no objective).
	ErrorRate   float64                `json:"error_rate"`
	HottestNode HottestNode            `json:"hottest_node"`
	Bottleneck  metrics.BottleneckJSON `json:"bottleneck"`
	Alerts      []Alert                `json:"alerts"`
	// Detection (docs/detection.md, "Where it is in summary.json"): the most requested keys
	// and most written partitions per stream, keys whose latency stands out, and what the
	// report concludes. The lists are left out when the run recorded nothing for them;
	// Diagnosis is always present.
	HotKeys         []HotKeys        `json:"hot_keys,omitempty"`
	HotPartitions   []HotPartitions  `json:"hot_partitions,omitempty"`
	LatencyOutliers []LatencyOutlier `json:"latency_outliers,omitempty"`
	Diagnosis       []Diagnosis      `json:"diagnosis"`
	// Events are the run's operator actions, shard splits and moves.
	Events []EventSummary `json:"events,omitempty"`
	// Saturated is set when the variant diverged; ElapsedS is the simulated time its
	// figures cover (less than the duration when it stopped early).
	Saturated *Saturation `json:"saturated,omitempty"`
	ElapsedS  float64     `json:"elapsed_s"`
	Partial   bool        `json:"partial,omitempty"`
	// Migrations are the variant's migrations (docs/migrations.md); left out when none.
	Migrations []MigrationSummary `json:"migrations,omitempty"`
	// ShardsMore and NodesMore are how many shards and nodes Shards and Nodes leave out
	// (MaxListedShards, MaxListedNodes): they are in shards.csv and nodes.csv. AlertsMore,
	// DiagnosisMore and EventsMore count the alerts, diagnoses and events left out.
	ShardsMore    int `json:"shards_more,omitempty"`
	AlertsMore    int `json:"alerts_more,omitempty"`
	NodesMore     int `json:"nodes_more,omitempty"`
	DiagnosisMore int `json:"diagnosis_more,omitempty"`
	EventsMore    int `json:"events_more,omitempty"`
	// Rebalance is what the variant's add_nodes action did (issue 21); left out when none.
	Rebalance *RebalanceSummary `json:"rebalance,omitempty"`
	// Indexes are the variant's global secondary indexes (docs/mitigations.md); left out
	// when none.
	Indexes []IndexSummary `json:"indexes,omitempty"`
}

// IndexSummary is a global secondary index: its name, mode, where its shards are among
// the variant's (ids first_shard to first_shard+shards-1, named INDEX/K), the entries
// written and the subrequests its shards refused, from metrics.Index.
type IndexSummary struct {
	Name       string `json:"name"`
	Mode       string `json:"mode"`
	FirstShard int    `json:"first_shard"`
	Shards     int    `json:"shards"`
	Rows       int64  `json:"rows"`
	Failures   int64  `json:"failures"`
}

// indexesOf is m's indexes as summary.json writes them; nil when none.
func indexesOf(m *metrics.Run) []IndexSummary {
	var out []IndexSummary
	for _, x := range m.Indexes {
		mode := "sync"
		if x.Async {
			mode = "async"
		}
		out = append(out, IndexSummary{Name: x.Name, Mode: mode, FirstShard: x.First, Shards: x.Shards, Rows: x.Rows, Failures: x.Failures})
	}
	return out
}

// shardName names shard id for a reader: its number, or INDEX/K for an index's shard
// (metrics.ShardName).
func (v *VariantSummary) shardName(id int) string {
	layouts := make([]metrics.IndexLayout, len(v.Indexes))
	for i, x := range v.Indexes {
		layouts[i] = metrics.IndexLayout{Name: x.Name, First: x.FirstShard, Shards: x.Shards}
	}
	return metrics.ShardName(layouts, id)
}

// HottestNode is the node with the highest utilization over the run (0..1 of its cores),
// and its utilization in its busiest window.
type HottestNode struct {
	ID              int     `json:"id"`
	Utilization     float64 `json:"utilization"`
	PeakUtilization float64 `json:"peak_utilization"`
}

// StreamSummary is one stream's totals over the requests issued after the warmup.
type StreamSummary struct {
	Name      string `json:"name"`
	Op        string `json:"op"`
	Offered   int64  `json:"offered"`
	Completed int64  `json:"completed"`
	Rejected  int64  `json:"rejected"`
	Throttled int64  `json:"throttled"`
	TimedOut  int64  `json:"timed_out"`
	// Attempts are the attempts sent (first ones and Retries); Limited the requests the
	// client's own rate limit turned away. Cache is set when the stream used the cache.
	Attempts int64         `json:"attempts"`
	Retries  int64         `json:"retries"`
	Limited  int64         `json:"limited"`
	Cache    *CacheSummary `json:"cache,omitempty"`
	Latency  Latency       `json:"latency_ms"`
	Fanout   Fanout        `json:"fanout"`
	// Rows is what a scan that reads rows (row_cost, or a row limit) read: in all and per
	// request; absent for other streams.
	Rows *RowsSummary `json:"rows,omitempty"`
	// Failed counts the failed requests over every cause (rejected, throttled, timed out,
	// limited) and ErrorRate is Failed/Offered (0..1; 0 when nothing was offered), both
	// from metrics.
	Failed    int64   `json:"-"`
	ErrorRate float64 `json:"error_rate"`
	// Lock is set for a stream whose writes take row locks (metrics.LockWaits).
	Lock *LockSummary `json:"lock,omitempty"`
	// Waits are the waits of the mechanisms that held the stream's work back, before its
	// service or after it (a connection pool, a page latch, a commit flush: metrics.Wait);
	// absent when none did.
	Waits []WaitSummary `json:"waits,omitempty"`
	// LockFailed counts the requests that failed waiting longer than lock_timeout (also
	// Lock.TimedOut), beside the other causes: rejected + throttled + timed_out + limited
	// + lock_failed is every failure.
	LockFailed int64 `json:"lock_failed"`
	// RetryLabel is what the scenario calls the stream's retries ("duplicate charge
	// attempts"); Retried when they were sent, absent for a stream that sent none.
	RetryLabel string          `json:"retry_label,omitempty"`
	Retried    *RetriedSummary `json:"retried,omitempty"`
}

// RetriedSummary is when a stream retried (metrics.RetriesOf): the starts of the first
// and last windows that sent a retry and of the window that sent the most (PeakCount of
// them), the warmup included.
type RetriedSummary struct {
	From      string  `json:"from"`
	FromS     float64 `json:"from_s"`
	To        string  `json:"to"`
	Peak      string  `json:"peak"`
	PeakCount int64   `json:"peak_count"`
}

// LockSummary is a locked stream's row-lock waits: the write subrequests that asked for
// their key's lock, those that queued for it, their waits in milliseconds (null when none
// asked), the requests that failed for waiting longer than lock_timeout, and the keys
// writes queued for most.
type LockSummary struct {
	Waits       int64      `json:"waits"`
	Queued      int64      `json:"queued"`
	QueuedShare float64    `json:"queued_share"`
	WaitMs      LockWaitMs `json:"wait_ms"`
	TimedOut    int64      `json:"timed_out"`
	HotKeys     []HotLock  `json:"hot_keys"`
	// HoldMs is the mean time a row stayed locked per write (null when no lock was
	// granted); HotRowWritesPerS the lock requests a second of the stream's most written
	// row, and HotRowLoad the load they offer its lock (their rate x HoldMs: 1 is all
	// it passes), from metrics.LockWaits.
	HoldMs           *float64 `json:"hold_ms"`
	HotRowWritesPerS float64  `json:"hot_row_writes_per_s"`
	HotRowLoad       float64  `json:"hot_row_load"`
}

// WaitSummary is one mechanism's waits of a stream's work: its name, what waited, how
// many went through it and how many of them waited, and their waits in milliseconds
// (those that went straight through waited 0; null when none went through).
type WaitSummary struct {
	Name        string     `json:"name"`
	Of          string     `json:"of"`
	Asked       int64      `json:"asked"`
	Queued      int64      `json:"queued"`
	QueuedShare float64    `json:"queued_share"`
	WaitMs      LockWaitMs `json:"wait_ms"`
}

// waitSummaries words a stream's waits (nil when it has none).
func waitSummaries(ms *metrics.Stream) []WaitSummary {
	var out []WaitSummary
	for _, w := range ms.Waits {
		out = append(out, WaitSummary{Name: w.Name, Of: w.Of, Asked: w.Asked, Queued: w.Queued, QueuedShare: units.Round(w.Share, 6),
			WaitMs: LockWaitMs{Mean: optMs(w.Mean), P99: optMs(w.P99), Max: optMs(w.Max)}})
	}
	return out
}

// LockWaitMs is the mean, p99 and largest wait for a row lock (or a mechanism's wait), in
// milliseconds.
type LockWaitMs struct {
	Mean *float64 `json:"mean"`
	P99  *float64 `json:"p99"`
	Max  *float64 `json:"max"`
}

// HotLock is a key whose lock writes queued for: Queued of them, overstated by at most
// Error.
type HotLock struct {
	Key    string   `json:"key"`
	Parts  []uint64 `json:"parts"`
	Queued int64    `json:"queued"`
	Error  int64    `json:"error"`
	Shard  int      `json:"shard"`
}

// lockSummary words a stream's lock figures; nil for a stream without locks.
func lockSummary(v *metrics.Variant, stream int, ms *metrics.Stream) *LockSummary {
	l := ms.Locks
	if l == nil {
		return nil
	}
	out := &LockSummary{Waits: l.Waits, Queued: l.Queued, QueuedShare: units.Round(l.Share, 6),
		WaitMs:   LockWaitMs{Mean: optMs(l.Mean), P99: optMs(l.P99), Max: optMs(l.Max)},
		TimedOut: ms.Failures[metrics.Lock], HotKeys: []HotLock{},
		HoldMs: optMs(l.HoldMean), HotRowWritesPerS: units.Round(l.HotRate, 1), HotRowLoad: units.Round(l.Busy, 4)}
	for _, k := range l.Hot[:min(len(l.Hot), hotShown)] {
		out.HotKeys = append(out.HotKeys, HotLock{Key: formatPartition(v, stream, k.Values), Parts: k.Values, Queued: k.Count, Error: k.Error, Shard: k.Shard})
	}
	return out
}

// Latency summarizes completed requests' latencies in milliseconds, from metrics.Latency:
// each is null when no request completed, and no quantile is above Max.
type Latency struct {
	Mean *float64 `json:"mean"`
	P50  *float64 `json:"p50"`
	P95  *float64 `json:"p95"`
	P99  *float64 `json:"p99"`
	P999 *float64 `json:"p999"`
	Max  *float64 `json:"max"`
}

// Fanout is the mean and largest number of subrequests (shards visited) per request and
// the mean number of partitions visited.
type Fanout struct {
	Mean       float64 `json:"mean"`
	Max        int     `json:"max"`
	Partitions float64 `json:"partitions"`
}

// RowsSummary is the rows a scan stream read, from metrics.Rows.
type RowsSummary struct {
	Read int64   `json:"read"`
	Mean float64 `json:"mean"`
}

// ShardSummary is one shard over the whole run. Utilization is CPU time on the shard's
// requests per second, as a fraction of its node's cores; PeakUtilization is the same in
// the busiest window.
type ShardSummary struct {
	ID              int     `json:"id"`
	Node            int     `json:"node"`
	Ops             int64   `json:"ops"`
	Utilization     float64 `json:"utilization"`
	PeakUtilization float64 `json:"peak_utilization"`
	Rows            int64   `json:"rows"`
	// P99 is the p99 in ms of the time the shard's subrequests spent at its node (null
	// when it served none); Failures the subrequests it refused (full queue, partition
	// limit), both over the run after the warmup, from metrics.Shard.
	P99      *float64 `json:"p99_ms"`
	Failures int64    `json:"failures"`
	// Name is an index's shard's name, INDEX/K (metrics.ShardName); left out for the
	// table's shards.
	Name string `json:"name,omitempty"`
}

// indexShardName is the name of shard id of m when it is an index's, "" otherwise.
func indexShardName(r *sim.Result, id int) string {
	layouts := metrics.IndexLayouts(r)
	if metrics.IndexOf(layouts, id) == nil {
		return ""
	}
	return metrics.ShardName(layouts, id)
}

// NodeSummary is one node over the whole run.
type NodeSummary struct {
	ID              int     `json:"id"`
	Cores           int     `json:"cores"`
	Utilization     float64 `json:"utilization"`
	PeakUtilization float64 `json:"peak_utilization"`
	MaxQueue        int     `json:"max_queue"`
}

// Skew compares the hottest shard with the median shard, over the whole run and in the
// busiest window. A ratio to a median of 0 (most shards idle while one works) is
// undefined: it is null in JSON and infinite in the text; MaxOverMean is always defined
// when any shard works. The spreads add the 95th percentile against the median and the
// Gini coefficient, of shards and of nodes, over the run and in the busiest window;
// skew.csv has them per window.
type Skew struct {
	MaxOverMedian     *float64   `json:"max_over_median"`
	MaxOverMean       float64    `json:"max_over_mean"`
	HottestShard      int        `json:"hottest_shard"`
	HottestLoad       float64    `json:"hottest_utilization"`
	MedianLoad        float64    `json:"median_utilization"`
	PeakWindow        string     `json:"peak_window"`
	PeakWindowS       float64    `json:"peak_window_s"`
	PeakHottestShard  int        `json:"peak_hottest_shard"`
	PeakHottestLoad   float64    `json:"peak_hottest_utilization"`
	PeakMedianLoad    float64    `json:"peak_median_utilization"`
	PeakMaxOverMedian *float64   `json:"peak_max_over_median"`
	ShardSpread       LoadSpread `json:"shard_spread"`
	NodeSpread        LoadSpread `json:"node_spread"`
	PeakShardSpread   LoadSpread `json:"peak_shard_spread"`
	PeakNodeSpread    LoadSpread `json:"peak_node_spread"`
}

// The findings and figures of a variant that diagnose and metrics make, under the names
// summary.json's readers know.
type (
	Alert          = diagnose.Alert
	Diagnosis      = diagnose.Diagnosis
	HotKeys        = metrics.HotKeys
	HotKey         = metrics.HotKey
	HotPartitions  = metrics.HotPartitions
	HotPartition   = metrics.HotPartition
	LatencyOutlier = metrics.LatencyOutlier
	CacheSummary   = metrics.CacheSummary
	LoadSpread     = metrics.LoadSpread
)

// Run is one variant's result beside the variant it came from.
type Run struct {
	Variant *metrics.Variant
	Result  *sim.Result
}

// Summarize builds summary.json's content.
func Summarize(sc *metrics.Scenario, runs []Run) *Summary {
	s := &Summary{
		Scenario:    sc.Name,
		Description: sc.Description,
		Seed:        sc.Seed,
		DurationS:   units.Round(sc.Duration.Seconds(), 6),
		WarmupS:     units.Round(sc.Warmup.Seconds(), 6),
		WindowS:     units.Round(sc.Window.Seconds(), 6),
		Start:       units.Clock(sc.Start, 0, units.TimeOfDay),
	}
	for _, run := range runs {
		v := summarizeVariant(sc, run)
		v.bound()
		s.Partial = s.Partial || v.Partial
		s.Variants = append(s.Variants, v)
	}
	s.Claims = Claims(sc, runs)
	return s
}

func summarizeVariant(sc *metrics.Scenario, run Run) VariantSummary {
	r := run.Result
	v := VariantSummary{
		Name:        run.Variant.Name,
		Description: run.Variant.Description,
		Key:         run.Variant.Key,
		Alerts:      diagnose.Alerts(sc, run.Variant, run.Result),
	}
	if v.Alerts == nil {
		v.Alerts = []Alert{}
	}
	v.ElapsedS, v.Partial = units.Round(r.Elapsed.Seconds(), 6), r.Partial
	if r.Saturated {
		a := diagnose.Saturated(sc, r)
		v.Saturated = &Saturation{At: a.At, AtS: a.AtS, Backlog: r.Backlog}
		v.Alerts = append(v.Alerts, a)
	}
	m := metrics.Of(r)
	for i := range r.Streams {
		v.Streams = append(v.Streams, streamSummary(sc, run, m, i))
	}
	for _, sh := range m.Shards {
		v.Shards = append(v.Shards, ShardSummary{
			ID: sh.ID, Node: sh.Node, Ops: sh.Ops, Rows: sh.Rows,
			Utilization: metrics.Util(sh.Utilization), PeakUtilization: metrics.Util(sh.Peak),
			P99: optMs(sh.P99), Failures: sh.Failures, Name: indexShardName(r, sh.ID),
		})
	}
	for _, nd := range m.Nodes {
		v.Nodes = append(v.Nodes, NodeSummary{
			ID: nd.ID, Cores: nd.Cores, Utilization: metrics.Util(nd.Utilization),
			PeakUtilization: metrics.Util(nd.Peak), MaxQueue: nd.MaxQueue,
		})
	}
	v.Skew = skew(sc, r, m)
	v.ErrorRate = units.Round(m.ErrorRate, 6)
	if len(m.Nodes) > 0 {
		hn := m.Nodes[m.Node.Index]
		v.HottestNode = HottestNode{ID: hn.ID, Utilization: metrics.Util(hn.Utilization), PeakUtilization: metrics.Util(hn.Peak)}
	}
	v.Bottleneck = metrics.BottleneckOf(m, false).JSON()
	dc := run.Variant.Detect
	v.HotKeys = metrics.HotKeysOf(r, run.Variant, dc.TopK)
	v.HotPartitions = metrics.HotPartitionsOf(r, run.Variant, dc.TopK)
	for i := range v.HotPartitions {
		if hp := &v.HotPartitions[i]; hp.Stopped {
			hp.CountedUntil = units.Clock(run.Variant.Start, hp.StoppedAt, units.TimeOfDay)
		}
	}
	v.LatencyOutliers = metrics.LatencyOutliersOf(r, run.Variant, dc)
	v.Events = eventsOf(sc, r)
	v.Migrations = migrationsOf(sc, m)
	v.Rebalance = rebalanceOf(sc, m)
	v.Indexes = indexesOf(m)
	v.Diagnosis = diagnose.Of(&diagnose.Case{Scenario: sc, Variant: run.Variant, Result: r, Run: m, HotKeys: v.HotKeys, HotPartitions: v.HotPartitions})
	return v
}

// streamSummary is stream i's totals, from metrics.
func streamSummary(sc *metrics.Scenario, run Run, m *metrics.Run, i int) StreamSummary {
	r := run.Result
	st, ms := &r.Streams[i], &m.Streams[i]
	l := &ms.Latency
	ss := StreamSummary{
		Name: ms.Name, Op: ms.Op.String(),
		Offered: ms.Offered, Completed: ms.Completed, Rejected: ms.Failures[metrics.Rejected],
		Throttled: ms.Failures[metrics.Throttled], TimedOut: ms.Failures[metrics.TimedOut],
		Attempts: st.Attempts, Retries: st.Retries, Limited: ms.Failures[metrics.Limited], Cache: ms.Cache,
		Latency: Latency{Mean: optMs(l.Mean), P50: optMs(l.P50), P95: optMs(l.P95), P99: optMs(l.P99), P999: optMs(l.P999), Max: optMs(l.Max)},
		Fanout:  Fanout{Mean: units.Round(ms.Fanout.Mean, 3), Max: ms.Fanout.Max, Partitions: units.Round(ms.Fanout.Partitions, 3)},
		Failed:  ms.Failed, ErrorRate: units.Round(ms.ErrorRate, 6),
		Lock: lockSummary(run.Variant, i, ms), LockFailed: ms.Failures[metrics.Lock], Waits: waitSummaries(ms),
		RetryLabel: run.Variant.Stream(i).RetryLabel,
	}
	if ms.Rows != nil {
		ss.Rows = &RowsSummary{Read: ms.Rows.Read, Mean: units.Round(ms.Rows.Mean, 3)}
	}
	if rs := metrics.RetriesOf(r, i); rs.First >= 0 && r.Window > 0 {
		at := func(w int) sim.Time { return sim.Time(w) * r.Window }
		ss.Retried = &RetriedSummary{From: units.Clock(sc.Start, at(rs.First), units.TimeOfDay), FromS: at(rs.First).Seconds(),
			To: units.Clock(sc.Start, at(rs.Last), units.TimeOfDay), Peak: units.Clock(sc.Start, at(rs.Peak), units.TimeOfDay), PeakCount: rs.PeakCount}
	}
	return ss
}

// skew compares the hottest shard with the median over the run and in the window whose
// hottest shard is hottest, as metrics found them, and adds the spreads of load.
func skew(sc *metrics.Scenario, r *sim.Result, m *metrics.Run) Skew {
	var k Skew
	k.HottestShard, k.HottestLoad, k.MedianLoad = m.Shard.Index, metrics.Util(m.Shard.Load), metrics.Util(m.Shard.Median)
	k.MaxOverMedian = optRound(m.Shard.MaxOverMedian, 3)
	k.MaxOverMean = units.Round(m.Shard.MaxOverMean, 3)
	w := m.PeakWindow
	k.PeakWindow = units.Clock(sc.Start, sim.Time(w)*r.Window, units.TimeOfDay)
	k.PeakWindowS = (sim.Time(w) * r.Window).Seconds()
	k.PeakHottestShard, k.PeakHottestLoad, k.PeakMedianLoad = m.PeakShard.Index, metrics.Util(m.PeakShard.Load), metrics.Util(m.PeakShard.Median)
	k.PeakMaxOverMedian = optRound(m.PeakShard.MaxOverMedian, 3)
	shards, nodes := metrics.RunSpread(r)
	k.ShardSpread, k.NodeSpread = shards.Rounded(), nodes.Rounded()
	if w < r.Windows {
		ws := metrics.WindowSpreadOf(r, w)
		k.PeakShardSpread, k.PeakNodeSpread = ws.Shards.Rounded(), ws.Nodes.Rounded()
	}
	return k
}

// optRound rounds an optional value to digits; nil stays nil.
func optRound(p *float64, digits int) *float64 {
	if p == nil {
		return nil
	}
	x := units.Round(*p, digits)
	return &x
}

// optMs rounds optional milliseconds to the microsecond; nil stays nil.
func optMs(p *float64) *float64 { return optRound(p, 3) }

// ms rounds milliseconds to the microsecond.
func ms(x float64) float64 { return units.Round(x, 3) }

// The Max... constants bound what a variant's summary lists, so that summary.json,
// report.md and report.html stay small at any size (about 3 MB a variant at most): above
// them, the hottest shards and nodes (by load over the run, the lower id on ties; the
// shards the heat line names first) in id order, and the first alerts, diagnoses and events in their order; the ...More fields
// count the rest.
const (
	MaxListedShards    = 1000
	MaxListedNodes     = 1000
	MaxListedAlerts    = 2000
	MaxListedDiagnoses = 1000
	MaxListedEvents    = 2000
)

// bound cuts v's lists to the Max... constants, once its figures, which read every shard
// and node, are made.
func (v *VariantSummary) bound() {
	if n := len(v.Shards); n > MaxListedShards {
		// The shards the heat line names (the run's hottest, the busiest window's) come
		// first: on a tie of loads (thousands of idle or equal shards) the hottest by
		// load are a choice among equals, and a named shard left out has no node to show.
		named := func(s ShardSummary) bool { return s.ID == v.Skew.HottestShard || s.ID == v.Skew.PeakHottestShard }
		kept := slices.Clone(v.Shards)
		slices.SortStableFunc(kept, func(a, b ShardSummary) int {
			if na, nb := named(a), named(b); na != nb {
				if na {
					return -1
				}
				return 1
			}
			return cmp.Compare(b.Utilization, a.Utilization)
		})
		kept = kept[:MaxListedShards]
		slices.SortFunc(kept, func(a, b ShardSummary) int { return cmp.Compare(a.ID, b.ID) })
		v.Shards, v.ShardsMore = kept, n-MaxListedShards
	}
	if n := len(v.Nodes); n > MaxListedNodes {
		kept := slices.Clone(v.Nodes)
		slices.SortStableFunc(kept, func(a, b NodeSummary) int { return cmp.Compare(b.Utilization, a.Utilization) })
		kept = kept[:MaxListedNodes]
		slices.SortFunc(kept, func(a, b NodeSummary) int { return cmp.Compare(a.ID, b.ID) })
		v.Nodes, v.NodesMore = kept, n-MaxListedNodes
	}
	if n := len(v.Alerts); n > MaxListedAlerts {
		v.Alerts, v.AlertsMore = v.Alerts[:MaxListedAlerts:MaxListedAlerts], n-MaxListedAlerts
	}
	if n := len(v.Diagnosis); n > MaxListedDiagnoses {
		v.Diagnosis, v.DiagnosisMore = v.Diagnosis[:MaxListedDiagnoses:MaxListedDiagnoses], n-MaxListedDiagnoses
	}
	if n := len(v.Events); n > MaxListedEvents {
		v.Events, v.EventsMore = v.Events[:MaxListedEvents:MaxListedEvents], n-MaxListedEvents
	}
}

// shardByID returns the listed shard id, or nil when the list leaves it out.
func (v *VariantSummary) shardByID(id int) *ShardSummary {
	if id >= 0 && id < len(v.Shards) && v.Shards[id].ID == id {
		return &v.Shards[id]
	}
	i, ok := slices.BinarySearchFunc(v.Shards, id, func(s ShardSummary, id int) int { return cmp.Compare(s.ID, id) })
	if !ok {
		return nil
	}
	return &v.Shards[i]
}
