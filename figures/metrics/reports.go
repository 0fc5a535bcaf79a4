package metrics

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/shardsim/shardsim/sim"
)

// What a mechanism reports of its own goes in the run's result as one of these
// (sim.Core.Report, sim.Result.Reports), which only the mechanism writes and the figures
// read: the result's own fields are the core's. A mechanism imports this package for
// them; the figures find each by its type.

// MigrationReport returns the migration's report in r (mechanisms/migrate), or nil when
// the run had no migration.
func MigrationReport(r *sim.Result) *MigrationResult { return reportOf[*MigrationResult](r) }

// RebalanceReport returns the rebalance's report in r (mechanisms/rebalance), or nil when
// the run had no rebalance.
func RebalanceReport(r *sim.Result) *RebalanceResult { return reportOf[*RebalanceResult](r) }

// IndexLayouts returns where r's global secondary indexes' shards are (mechanisms/index),
// in the indexes' order; nil when the run had none.
func IndexLayouts(r *sim.Result) []IndexLayout { return reportOf[[]IndexLayout](r) }

// CacheReport returns the read cache's counts in r (mechanisms/cache), or nil when the run
// had no cache.
func CacheReport(r *sim.Result) *CacheResult { return reportOf[*CacheResult](r) }

// CacheCountsOf returns stream i's reads through the cache in r, or nil when the run had
// no cache or the stream does not read through it.
func CacheCountsOf(r *sim.Result, i int) *CacheCounts {
	if c := CacheReport(r); c != nil && i < len(c.Streams) && c.Streams[i].Backend != nil {
		return &c.Streams[i]
	}
	return nil
}

// BackendReadsIn returns the database reads stream i's cache misses and refreshes sent in
// window w of r (0 for a stream without a cache).
func BackendReadsIn(r *sim.Result, i, w int) int64 {
	if c := CacheCountsOf(r, i); c != nil && w < len(c.Backend) {
		return c.Backend[w]
	}
	return 0
}

// LockReport returns the row locks' figures in r (mechanisms/locks), or nil when the run
// had no row locks.
func LockReport(r *sim.Result) *LockResult { return reportOf[*LockResult](r) }

// LockCountsOf returns stream i's row-lock figures in r, or nil when it takes no locks.
func LockCountsOf(r *sim.Result, i int) *LockCounts {
	if l := LockReport(r); l != nil && i < len(l.Streams) {
		return l.Streams[i]
	}
	return nil
}

// reportOf is r's report of type T, or T's zero value when none is.
func reportOf[T any](r *sim.Result) T {
	for _, x := range r.Reports {
		if v, ok := x.(T); ok {
			return v
		}
	}
	var zero T
	return zero
}

// IndexLayout says where a global secondary index's shards are among a run's
// (mechanisms/index, which reports its indexes' as one []IndexLayout): the ids First to
// First+Shards-1.
type IndexLayout struct {
	Name          string
	First, Shards int
	Async         bool
}

// MigrationResult is what a migration did (mechanisms/migrate, docs/migrations.md), as it
// reports it (Core.Report). Times are since the start of the run; a phase not reached has
// -1.
type MigrationResult struct {
	Start, BackfillDone, Cutover sim.Time
	// RowsToCopy are the rows the backfill had to copy; RowsCopied those it copied by the
	// end of the run.
	RowsToCopy, RowsCopied int64
	// BackfillCPU is the CPU time of the backfill's reads and writes, counted as they are
	// served, within the run (BackfillBusy holds it by window); DualCPU that of the dual
	// writes' second copy: on the new layout before the cutover, on the old one during
	// the verification period. Their sum is the CPU the migration added.
	BackfillCPU, DualCPU sim.Time
	// Copied holds the rows copied in each window.
	Copied []int64
	// BackfillBusy holds the backfill's CPU time in each window: a batch's service counts
	// in the windows it spans, as ShardBusy, not when the batch was issued.
	BackfillBusy []sim.Time
	// Refused counts the backfill's batches a full queue (Node.QueueLimit) pushed back:
	// each waited one batch period and was issued again, which slows the copy.
	Refused int64
	// Rate is the backfill's rate in rows per second: the migration's, or the lower rate
	// its CPU cap allows.
	Rate float64
	// OldWritesEnd is when writes stopped going to the old layout: the cutover, or the end
	// of the verification period after it (-1: not reached).
	OldWritesEnd sim.Time
	// Shards is the first shard id of the new layout: shards before it are the old one's.
	Shards int
	// CutoverDue is when the cutover was due (the end of the backfill, or its clock time;
	// -1: not reached). Cutover is later when it waited for an outbox to drain.
	CutoverDue sim.Time
	// Drained counts the outbox's copies applied while the cutover waited for them; their
	// CPU is in DualCPU, as every copy's.
	Drained int64
	// Settled is when the last request issued before the cutover reached its client
	// (served or failed), if that was after the cutover; -1 otherwise. Until then the
	// backlog the old layout built is still draining, so the phase "after" starts here.
	Settled sim.Time
}

// RebalanceResult is what a rebalance did (mechanisms/rebalance, docs/migrations.md), as it
// reports it (Core.Report). Times are since the start of the run; -1: not reached.
type RebalanceResult struct {
	// Start is when the nodes joined; Done when the last planned move was done.
	Start, Done sim.Time
	// Rate is the copy rate applied: the rebalance's rate, or the lower rate its CPU cap
	// allows.
	Rate float64
	// Moves are the planned moves in order; a move not started or not done has -1 times.
	Moves []ShardCopy
	// CopyCPU is the CPU time of the copies' reads and writes; RowsCopied their rows.
	CopyCPU    sim.Time
	RowsCopied int64
	// Copied holds the rows copied in each window.
	Copied []int64
}

// ShardCopy is one planned move of a rebalance.
type ShardCopy struct {
	Shard, From, To int
	// Rows are the rows the move copied (its history share, the rows written before it
	// started, and those written while it ran).
	Rows        int64
	Start, Done sim.Time
}

// CacheResult is what the client-side read cache counted (mechanisms/cache,
// docs/mitigations.md), as it reports it (Core.Report): Streams[i] is stream i's, the zero
// CacheCounts for a stream that does not read through it.
type CacheResult struct {
	Streams []CacheCounts
}

// CacheCounts are a stream's reads through the cache. The counts cover the requests
// issued after the warmup; Backend holds every database read by the window in which it
// reached the nodes (nil: the stream does not read through the cache).
type CacheCounts struct {
	Hits         int64 // reads answered by the cache (stale ones included)
	Stale        int64 // reads answered by an expired entry while it was refreshed
	Joined       int64 // misses that waited for another read of the same key (single-flight)
	BackendReads int64 // reads of the database caused by the stream's misses and refreshes
	Backend      []int64
}

// LockResult is what row locks recorded (mechanisms/locks, docs/mitigations.md), as they
// report it (Core.Report): Streams[i] is stream i's, nil for a stream that takes none.
type LockResult struct {
	Streams []*LockCounts
}

// LockCounts are a locked stream's row-lock figures, over the write subrequests of the
// requests issued after the warmup: Waits asked for their key's lock and got it or gave
// up, Waited of them found it held and queued. WaitSum (nanoseconds, for an exact mean),
// WaitMax and Wait (microseconds; a subrequest that found the lock free waited 0; nil
// until the run's end) cover all Waits. Hot are the keys whose lock writes queued for most
// (Count: the subrequests that found it held). Holds counts the locks granted to them and
// HoldSum (nanoseconds) the time the row stayed locked for those grants, for the mean hold
// that caps a row's writes.
type LockCounts struct {
	Waits   int64
	Waited  int64
	WaitSum float64
	WaitMax sim.Time
	Wait    *hdrhistogram.Histogram
	Hot     []sim.KeyCount
	Holds   int64
	HoldSum float64
	// OwnRows says every write locked a row of its own (a job queue's SKIP LOCKED claims),
	// so no row's lock was offered more than one write; QueueHead that every write asked
	// for its queue's head (claims of the oldest job), which each waits for in turn.
	OwnRows, QueueHead bool
}
