package compile

import (
	"fmt"
	"slices"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// Requests returns the number of requests the variant's streams are expected to issue in
// the run (the integral of their rates), before retries.
func Requests(s *scenario.Resolved) float64 {
	total := 0.0
	for i := range s.Streams {
		if len(s.Streams[i].Schedule) == 0 {
			continue
		}
		total += s.Streams[i].Integral(0, int64(s.Duration))
	}
	return total
}

// Memory a run takes, as the process's peak RSS (measured figures in scenarios/memory_test.go): a
// base of 35 MB (the binary and the runtime, a small run's whole footprint), and the
// heap, which the Go runtime lets grow past what it holds between collections: about 1.5
// times the live bytes at the peak (heapGrowth). The live bytes are each variant's
// series and per-shard state (MemoryBytes: a shard's and node's window cell about 50
// bytes, the series and the CSV and summary text made from them; a shard about 2.5 KB,
// its run-wide histogram of subrequest times and its summary), its latency histograms
// (a cell per distinct latency cell among a window's completions, sim.WindowHist: at most
// 8 bytes a request over the run, and at most the 28 KB of the layout's cells below 2.8 hours per window),
// and for the variants running at once the subrequests they hold (about 62 bytes each
// with their requests): those in service, at most the cluster's cores, and, in a run that
// may saturate, up to sim.DefaultMaxQueued (2 million) waiting before it is declared
// saturated (black-friday, 5 variants two at a time, peaks at 329 MB).
const (
	bytesPerCell       = 50
	bytesPerShard      = 2 << 10  // a shard's run-wide histogram of subrequest times (sim.ShardResult.SubLatency)
	bytesPerHist       = 28 << 10 // a window histogram's cells below 10^10 us (2.8 h), 3,584 of 8 bytes: a window's completions reach the 2,048 cells past them only by taking longer
	bytesPerHistCell   = 8
	bytesPerWindow     = 64 // a window histogram's header and its stream's window figures
	bytesBase          = 35 << 20
	heapGrowth         = 1.5
	addressGrowth      = 2 // the heap's address space over its live bytes (GOGC=100), for split runs' copies
	bytesPerSubrequest = 62
	MaxRunMemory       = 4 << 30 // the most a whole run (every variant, every output) may take
	maxRunMemoryText   = "4 GB"
)

// MemoryBytes estimates the live bytes this variant adds to a run: its time series, its
// latency histograms, and the text written from them (see bytesPerCell).
func MemoryBytes(s *scenario.Resolved) float64 {
	if s.Window <= 0 || s.Duration <= 0 {
		return 0
	}
	windows := float64(s.Duration/s.Window + min(s.Duration%s.Window, 1))
	if s.Streamed() {
		return streamedBytes(s, windows) + histBytes(s, windows) + float64(len(s.Streams))*bytesPerStreamResult
	}
	shards := float64(engineShards(s) + len(s.Nodes))
	return windows*shards*bytesPerCell + histBytes(s, windows) + float64(engineShards(s))*(bytesPerShard+bytesPerKeptShard) +
		float64(len(s.Streams))*bytesPerStreamResult
}

// engineShards is the shards the engine keeps series and state for: the table's (as
// many as splits may make) and those its mechanisms give it besides (OtherShards: every
// index's, [[indexes]], numbered after the table's).
// 19 indexes of 10,000 shards were estimated at 38 MB, counting the table's 100 alone,
// and peaked at 428 MB.
func engineShards(s *scenario.Resolved) int {
	return max(s.Shards, s.MaxShards) + s.OtherShards()
}

// resultBytes is what a variant's sim.Result holds while it runs: the raw series
// (bytesPerWorkerCell a shard's or node's window, none of the text made from them later,
// which MemoryBytes counts), the window histograms, each shard's run-wide histogram and
// each stream's; for a run that streams its shard series, what MemoryBytes counts.
func resultBytes(s *scenario.Resolved) float64 {
	if s.Window <= 0 || s.Duration <= 0 || s.Streamed() {
		return MemoryBytes(s) // a streamed run's Result holds no shard series
	}
	windows := float64(s.Duration/s.Window + min(s.Duration%s.Window, 1))
	shards := float64(engineShards(s))
	return windows*(shards+float64(len(s.Nodes)))*bytesPerWorkerCell + histBytes(s, windows) +
		shards*bytesPerShard + float64(len(s.Streams))*bytesPerStreamResult
}

// WorkerBytes is what a run of s split among up to cores workers (sim.RunOn) holds beyond
// a run on one engine while it runs: every worker but the first keeps a whole Result of
// its own (resultBytes), merged into the first's when they are done, and the workers
// together log every success detection sampled, one request in sample_every, for the
// merge to replay in time order (bytesPerSampleLog each). A run that cannot be split
// (sim.OneCoreReason, or one that streams its shard series) holds none.
func WorkerBytes(s *scenario.Resolved, cores int) float64 {
	workers := min(cores, len(s.Nodes))
	if workers <= 1 || s.Streamed() || sim.OneCoreReason(Model(s)) != "" {
		return 0
	}
	logs := Requests(s) / float64(max(s.Detect.SampleEvery, 1)) * bytesPerSampleLog
	return float64(workers-1)*resultBytes(s) + logs
}

// bytesPerSampleLog is a split run's log entry of a sampled success (sim.sampleLog: its
// time, key, latency, shard, key values and order).
const bytesPerSampleLog = 112

// bytesPerWorkerCell is a Result's window cell of a shard or node: busy time and
// operations (8 bytes each) and the longest queue (4).
const bytesPerWorkerCell = 20

// bytesPerStreamResult is what a stream's result keeps besides its windows: its run-wide
// latency histogram (3 significant digits up to 10^15 us: 41,984 counts of 8 bytes) and its
// figures. 1,000 variants of one stream peaked at 620 MB, of three streams at 1,672 MB:
// 351 KB of live heap a stream and variant (scenarios/memory_test.go).
const bytesPerStreamResult = 351 << 10

// bytesPerKeptShard is a kept shard's summary and report entries besides its histogram.
const bytesPerKeptShard = 512

// histBytes bounds the memory of the variant's window latency histograms over windows
// windows: a cell per distinct latency cell of a window's completions, so no more cells
// than requests over the run (with a tenth for the Poisson counts' spread around their
// expectation), and no more than the dense layout per window.
func histBytes(s *scenario.Resolved, windows float64) float64 {
	sw := windows * float64(len(s.Streams))
	return min(sw*bytesPerHist, 1.1*Requests(s)*bytesPerHistCell) + sw*bytesPerWindow
}

// FixedBytes estimates the memory a running variant's engine allocates at its full size
// when it is built and frees after the run, resident as its pages are touched: what the
// mechanisms allocate whole (fixedMemory: the cache's entries and index, at
// cache.capacity), and each point stream's per-key
// latency statistics (detect.max_keys slots and an index of twice as many, filled by one
// request in detect.sample_every). These are not heap that grows between collections, so
// RunMemory counts them once, for the variants that run at once.
func FixedBytes(s *scenario.Resolved) float64 {
	b := ringBytes(s)
	for _, x := range s.Mechanisms {
		if f, ok := x.(fixedMemory); ok {
			b += f.FixedBytes()
		}
	}
	every := float64(max(s.Detect.SampleEvery, 1))
	maxKeys := float64(max(s.Detect.MaxKeys, 1))
	for i := range s.Streams {
		ss := &s.Streams[i]
		if ss.Op == sim.Scan {
			continue
		}
		keys := min(maxKeys, ss.Integral(0, int64(s.Duration))/every+1)
		index := pow2At(2*max(s.Detect.MaxKeys, 1)) * 12 // 8-byte ids and 4-byte slots
		// An insert touches a page of each of the index's two arrays.
		b += min(index, keys*2*4096) + keys*(bytesPerDetectKey+8*float64(len(s.Key)))
	}
	return b
}

// ringBytes is the memory of the consistent-hash rings (hash = "ring"; the points each
// scheme counts, keyspace.SchemeKind.Points) of the table and of the layouts of the shards
// the model parts add to it (scenario.ModelPart.Shards: the indexes'): a ring keeps 12
// bytes a point and sorts 16 while it is built, and a run's process builds them more than
// once. Measured as peak RSS less the rest of the estimate (docs/performance.md): the
// table's ring of 10 million points took 494 MB, three index rings of 10 million points
// each 650 MB; both were estimated with no ring at all.
func ringBytes(s *scenario.Resolved) float64 {
	b := 0.0
	b += float64(s.Scheme.Points(s.SchemeOptions, s.Shards)) * bytesPerTableRingPoint
	for _, t := range ownLayouts(s) {
		if t != nil {
			b += float64(t.Scheme.Points(t.SchemeOptions, t.Shards)) * bytesPerOwnRingPoint
		}
	}
	return b
}

const (
	bytesPerTableRingPoint = 48
	bytesPerOwnRingPoint   = 22 // measured on the indexes'
)

// bytesPerDetectKey is a tracked key's id, count, latency sum and shard, with what the
// sketches keep beside them (measured: six streams of a million keys each, 1,159 MB).
const bytesPerDetectKey = 77

// fixedMemory is a mechanism's setting that allocates memory at its full size when the
// engine is built, as the read cache's entries (mechanisms/cache): FixedBytes counts it.
type fixedMemory interface{ FixedBytes() float64 }

// pow2At is the least power of two at or above n (at least 8).
func pow2At(n int) float64 {
	p := 8
	for p < n {
		p <<= 1
	}
	return float64(p)
}

// RunMemory estimates the peak memory of a run of these variants, parallel of them at
// once, each on up to cores engine cores, and says whether it fits in MaxRunMemory; when
// it does not, the message says what to lower. held[i] is the most subrequests variant i
// holds at once (those in service, and the backlog of a run that may saturate); nil counts
// a full backlog for each.
func RunMemory(variants []*scenario.Resolved, parallel, cores int, held []float64) (bytes float64, problem string) {
	e := runMemoryOf(variants, parallel, cores, held)
	if e.bytes <= MaxRunMemory || len(variants) == 0 {
		return e.bytes, e.addressProblem(cores)
	}
	return e.bytes, e.problem(variants, cores)
}

// runMemory is RunMemory's estimate and its parts: the live bytes of the reports and
// results, what split runs add to them, the fixed tables of the runs at once, the
// requests they may hold, and the variant whose series are largest.
type runMemory struct {
	bytes, live, split, run, waiting float64
	most                             int
}

func runMemoryOf(variants []*scenario.Resolved, parallel, cores int, held []float64) runMemory {
	// The peak is that of the reports, every variant's series and the text made from them
	// (MemoryBytes), or that of the last runs, every variant's Result and the workers'
	// copies of those running (WorkerBytes), whichever is more.
	var e runMemory
	results := 0.0
	var holds, fixed, workers []float64
	for i, v := range variants {
		e.live += MemoryBytes(v)
		results += resultBytes(v)
		if MemoryBytes(v) > MemoryBytes(variants[e.most]) {
			e.most = i
		}
		h := float64(sim.DefaultMaxQueued)
		if held != nil {
			h = held[i]
		}
		holds = append(holds, h)
		fixed = append(fixed, FixedBytes(v))
		workers = append(workers, WorkerBytes(v, cores))
	}
	slices.Sort(holds)
	slices.Sort(fixed)
	slices.Sort(workers)
	at := min(max(parallel, 1), len(holds)) // the variants that run at once
	for k := 0; k < at; k++ {
		e.split += workers[len(workers)-1-k]
	}
	if results+e.split > e.live {
		e.split = results + e.split - e.live // what the split runs add to the peak
		e.live += e.split
	} else {
		e.split = 0
	}
	for k := 0; k < at; k++ {
		e.waiting += holds[len(holds)-1-k] * bytesPerSubrequest
		e.run += fixed[len(fixed)-1-k]
	}
	e.live += e.waiting
	e.bytes = bytesBase + heapGrowth*e.live + e.run
	return e
}

// addressProblem is the problem of a run whose resident estimate fits but whose split
// runs' address space does not. A split run's copies are allocated whole but each worker
// touches its own nodes' part, so the resident peak (bytes) sees little of them; the
// address space the heap takes sees all of them, and up to twice the live bytes (GOGC's
// 100%) before a collection: under an address-space cap (ulimit -v) 64 workers whose
// estimate was 4.1 GB, 516 MB resident, died out of memory at 4 GB
// (docs/performance.md).
func (e runMemory) addressProblem(cores int) string {
	if space := bytesBase + addressGrowth*e.live + e.run; e.split > 0 && space > MaxRunMemory {
		return fmt.Sprintf("--engine-cores %d: the run's workers would take about %.1f GB of address space, %.1f GB of it for their copies of the run's time series (each worker allocates a whole copy while it runs); at most %s is allowed: use fewer engine cores, or run fewer variants at once (-j)",
			cores, space/(1<<30), addressGrowth*e.split/(1<<30), maxRunMemoryText)
	}
	return ""
}

// problem says what to lower for a run past MaxRunMemory: the part of the estimate that
// takes most.
func (e runMemory) problem(variants []*scenario.Resolved, cores int) string {
	bytes := e.bytes
	if bytes-heapGrowth*e.split <= MaxRunMemory {
		return fmt.Sprintf("--engine-cores %d: the run needs about %.1f GB, of which its runs split among up to %d workers add %.1f GB (each worker keeps a copy of the run's time series while it runs); at most %s is allowed: use fewer engine cores, or run fewer variants at once (-j)",
			cores, bytes/(1<<30), cores, heapGrowth*e.split/(1<<30), maxRunMemoryText)
	}
	if e.run > heapGrowth*e.live {
		// The cache's table, the per-key statistics and the rings, allocated at their full size.
		return fmt.Sprintf("the run needs about %.1f GB, %.1f GB of it for the cache's entries (cache.capacity), the per-key latency statistics (detect.max_keys, detect.sample_every) and the consistent-hash rings (shards x vnodes) of the variants that run at once; at most %s is allowed: lower cache.capacity, detect.max_keys or vnodes, or run fewer variants at once (-j)",
			bytes/(1<<30), e.run/(1<<30), maxRunMemoryText)
	}
	if e.waiting > e.live-e.waiting {
		return fmt.Sprintf("the run needs about %.1f GB, %.1f GB of it for the requests it may hold at once: a queue or a row lock's waiters may grow to %d before the run stops as saturated; at most %s is allowed: lower the rates, or run fewer variants at once (-j)",
			bytes/(1<<30), heapGrowth*e.waiting/(1<<30), sim.DefaultMaxQueued, maxRunMemoryText)
	}
	v := variants[e.most]
	windows := v.Duration/v.Window + min(v.Duration%v.Window, 1)
	shards, fewer := fmt.Sprintf("%d shards", engineShards(v)), "fewer shards"
	if n := v.OtherShards(); n > 0 {
		shards, fewer = fmt.Sprintf("%d shards, %d of them its indexes'", engineShards(v), n), "fewer shards or indexes"
	}
	return fmt.Sprintf("the run needs about %.1f GB: %d variant(s), the largest with %d windows x (%s + %d nodes) of time series and the CSV files written from them; at most %s is allowed: use a wider window, fewer variants (--variant) or %s",
		bytes/(1<<30), len(variants), windows, shards, len(v.Nodes), maxRunMemoryText, fewer)
}

// The memory of a streamed variant, measured as peak RSS (docs/performance.md): per node
// and window its three node series (NodeBusy, NodeCapacity, NodeMaxQueue) and the
// per-window node loads the readers derive; per window the digest's spread and top
// shards; per shard its run-wide histogram (bytesPerShard), the digest's and the ring's
// cells and its summary entries; and the digest's heat map, at most 1,000 x 1,000 cells.
const (
	bytesPerDigestWindow  = 2 << 10
	bytesPerStreamedShard = 640
	bytesPerHeatCell      = 40
)

// streamedBytes estimates a streamed variant's series, digest and per-shard state.
func streamedBytes(s *scenario.Resolved, windows float64) float64 {
	shards := float64(engineShards(s))
	heat := min(shards, 1000) * min(windows, 1000) * bytesPerHeatCell
	return windows*float64(len(s.Nodes))*seriesCellBytes + windows*bytesPerDigestWindow +
		shards*(bytesPerShard+bytesPerStreamedShard) + heat
}
