package spec

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

// Defaults of optional keys, documented in docs/scenario.md.
const (
	defaultSeed       = 1
	defaultStart      = "00:00"
	defaultWindow     = "1m"
	defaultHistory    = "1d"
	defaultCores      = 1
	defaultVnodes     = 64
	defaultZipfS      = 0.99
	defaultHotFrac    = 0.2
	defaultHotOps     = 0.8
	defaultCV         = 0.5
	maxWindows        = 20_000
	maxShards         = 100_000
	maxNodes          = 10_000
	maxCategorical    = 1_000_000
	maxTableFields    = 64
	maxScheduleLength = 10_000
	maxRingPoints     = 10_000_000
	maxSalt           = 65_536
	maxLoadFactor     = 1_000_000
	maxSeriesCells    = 20_000_000 // shards and nodes x windows: about 480 MB
	maxStreamWindows  = 200_000    // streams x windows: histograms at most 28 KB each (below 2.8 h), about 8 cells of 8 bytes in practice
	maxCost           = sim.Hour
	maxNameLength     = 64 // stream names: they name chart files
	maxVariantName    = 200
	// maxAge bounds history, ages and durations: time-ordered ids hold row times within
	// about 34 years of t = 0 (workload.EpochOffsetMillis).
	maxAge = 10_000 * 24 * sim.Hour
	// maxNetwork and maxClientWait bound the delays a request's time adds up: with the
	// run's duration and history within maxAge, no sum of them (a request's issue time,
	// two network crossings per attempt, eleven attempts' timeouts and backoffs) comes
	// near the 292 years of int64 nanoseconds.
	maxNetwork    = sim.Hour
	maxClientWait = 24 * sim.Hour
)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
var streamNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// FieldError is one problem of a scenario: the dotted key ("streams[1].rate") and what is
// wrong with it. The loader maps the key to a file and line, or to the flag that set it.
type FieldError struct {
	Key string
	Msg string
	Err error // the typed problem behind Msg, where a caller tells kinds apart (errors.As)
}

// checker gathers problems.
type checker struct{ probs []FieldError }

func (c *checker) add(key, format string, args ...any) {
	c.probs = append(c.probs, FieldError{Key: key, Msg: fmt.Sprintf(format, args...)})
}

// duration reads an optional duration: def when it is absent. The text was parsed as it
// was decoded; this checks its range.
func (c *checker) duration(key string, dur Duration, def string, minimum sim.Time) sim.Time {
	s, d := dur.Text, dur.Value
	if s == "" {
		s = def
		if s == "" {
			c.add(key, "required (a duration such as \"1h\")")
			return 0
		}
		var err error
		if d, err = units.ParseDuration(s); err != nil {
			panic("spec: bad default duration " + s)
		}
	}
	if d > maxAge {
		c.add(key, "must be at most 10000d (got %q): time-ordered ids and the simulator's nanosecond clock cover about 27 years from the start", s)
		return 0
	}
	if d < minimum {
		if minimum == 1 {
			c.add(key, "must be positive (got %q)", s)
		} else {
			c.add(key, "must not be negative (got %q)", s)
		}
		return 0
	}
	return d
}

// requiredCount reads a required count between 1 and most; 0 when it is missing or bad.
func (c *checker) requiredCount(key, what string, p *int, most int) int {
	switch {
	case p == nil:
		c.add(key, "required (the number of %s, at least 1)", what)
	case *p < 1:
		c.add(key, "must be at least 1 (got %d)", *p)
	case *p > most:
		c.add(key, "must be at most %d (got %d)", most, *p)
	default:
		return *p
	}
	return 0
}

func (c *checker) intAtLeast(key string, p *int, def, minimum int) int {
	if p == nil {
		return def
	}
	if *p < minimum {
		c.add(key, "must be at least %d (got %d)", minimum, *p)
		return def
	}
	return *p
}

func oneOf(c *checker, key, got, def string, allowed ...string) string {
	if got == "" {
		return def
	}
	if !slices.Contains(allowed, got) {
		c.add(key, "must be one of %s (got %q)", strings.Join(quoteAll(allowed), ", "), got)
		return def
	}
	return got
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// FieldSpec is a validated field generator.
type FieldSpec struct {
	Gen          Gen
	N            uint64
	S            float64
	Scramble     bool
	HotFraction  float64
	HotOps       float64
	Count        int
	Weights      []float64
	Labels       []string // categorical values as written
	TimeOrdered  bool
	Cardinality  uint64 // 0: unbounded
	DeclaredHere bool
}

// StreamSpec is a validated stream.
type StreamSpec struct {
	Name     string
	Op       sim.Op
	Schedule workload.Schedule
	Uniform  bool
	Cost     sim.Time
	Service  sim.Service
	Age      AgeSpec
	Fields   []FieldSpec // per table field, with the stream's overrides applied
	Where    map[string]WhereSpec
	Query    []keyspace.PartQuery // for scans with a where clause
	SLO      []sim.Time           // p99 alert thresholds, increasing
	Burst    *workload.Burst      // nil: no bursts
	Client   sim.Client
	// Trace, when set, is the log the stream replays (trace.go).
	Trace *TraceSpec
	// Lock is the row lock a write holds (Mean 0: none), LockTimeout its wait's bound.
	Lock        sim.Delay
	LockTimeout sim.Time
	// Clients > 0: a closed-loop stream, whose Schedule is then the rate its clients
	// would issue if nothing queued, clients / (think + cost + 2 x network), for the
	// estimates made before a run (explain, the bound on a run's work).
	Clients int
	Think   sim.Delay
	// RowCost and RowLimit are a scan's cost per row read and the most rows it reads (0:
	// no limit); Rows says the scan reads rows at all (either is set), see keyspace.Rows.
	RowCost  sim.Time
	RowLimit int64
	Rows     bool
	// RetryLabel is what the stream's retries mean to a reader ("" : just retries).
	RetryLabel string
}

// defaultSLO is the p99 thresholds a stream alerts on unless it sets slo: the lines a
// latency graph of an incident usually crosses in turn.
var defaultSLO = []sim.Time{200 * sim.Millisecond, 500 * sim.Millisecond, 1500 * sim.Millisecond}

func resolveSLO(c *checker, key string, l SLOList) []sim.Time {
	if !l.Given {
		return defaultSLO
	}
	// The thresholds were checked (positive, increasing) as they were decoded.
	out := make([]sim.Time, len(l.Items))
	for i, d := range l.Items {
		out[i] = d.Value
	}
	return out
}

// WhereSpec is one constrained field of a scan: an equality or the last span of time.
type WhereSpec struct {
	Eq   bool
	Span sim.Time
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

type AgeSpec struct {
	Dist  string // "", "const", "exponential", "uniform"
	Value sim.Time
}

// Resolved is a fully validated variant: everything Model needs, as plain values.
type Resolved struct {
	Name        string
	Description string
	Seed        uint64
	Start       sim.Time
	Duration    sim.Time
	Warmup      sim.Time
	Window      sim.Time
	Network     sim.Time
	Nodes       []sim.Node
	Shards      int
	// Placement is how shards are placed on nodes, and ShardNodes the node of each shard
	// when it is explicit (build.Placement places them).
	Placement  Placement
	ShardNodes []int
	Scheme     string
	Hash       string
	Vnodes     int
	Key        []string
	Parts      []keyspace.Part
	Salt       int
	SaltMode   keyspace.SaltMode
	SaltField  int
	Directory  []DirSpec
	Slots      []keyspace.SlotRange // redis_cluster: shard i's slot range
	FieldNames []string             // sorted; field i of every request
	Fields     []FieldSpec
	Streams    []StreamSpec
	History    sim.Time
	TableName  string
	// Detail is the range kept at a finer grain (Window 0: none), see detail.go.
	Detail sim.Detail
	// Claims are the story's claims (claims.go), the same in every variant.
	Claims     []ClaimSpec
	LoadFactor float64 // multiplies every stream's rate

	// Mitigations and detection (mitigate.go); zero or nil: none.
	Replicas     int
	ReadAny      bool
	ApplyCost    sim.Time // 0: each write stream's own cost
	Cache        *sim.Cache
	CacheStreams []bool // per stream: its reads go through the cache
	Limits       *sim.PartitionLimits
	Split        *sim.SplitPolicy // nil: no splitting
	MaxShards    int              // the shards the variant may reach: shards without splitting
	Copies       *CopiesSpec
	Actions      []sim.Action // in time order
	Detect       DetectConfig
	DetectGiven  bool // [detect] was given
	// Migration is the [[actions]] entry's migrate (nil: none); its Target is filled by
	// the loader of the scenario, which knows the other variants.
	Migration *MigrationSpec
	// Rebalance is the [[actions]] entry's add_nodes (nil: none).
	Rebalance *RebalanceSpec
}

// Error formats the problem as "KEY: MSG".
func (e FieldError) Error() string { return e.Key + ": " + e.Msg }

// Validate checks every value of f and returns every problem found, joined (errors.Join
// of FieldError values), or nil. It does not change f, and the problems come in an order
// fixed by the file's content alone.
func (f *File) Validate() error {
	_, probs := Resolve(f)
	errs := make([]error, len(probs))
	for i, p := range probs {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// Resolve applies the defaults to f and validates every value. It returns the resolved
// form, ready for the build step, and every problem found; the resolved form is fit to
// build only when there are none.
func Resolve(f *File) (*Resolved, []FieldError) {
	c := &checker{}
	s := &Resolved{}

	switch {
	case f.Name == "":
		c.add("name", "required (lower-case letters, digits and dashes)")
	case !nameRE.MatchString(f.Name):
		c.add("name", "must be lower-case letters, digits and dashes (got %q)", f.Name)
	case len(f.Name) > maxNameLength:
		c.add("name", "must be at most %d characters: it names the output directory (got %d)", maxNameLength, len(f.Name))
	}
	if i := strings.IndexFunc(f.Description, isControl); i >= 0 {
		c.add("description", "must not hold control characters (found %q at byte %d)", f.Description[i:i+1], i)
	}
	s.Name, s.Description = f.Name, f.Description
	s.Seed = defaultSeed
	if f.Seed != nil {
		if *f.Seed < 0 {
			c.add("seed", "must not be negative (got %d)", *f.Seed)
		} else {
			s.Seed = uint64(*f.Seed)
		}
	}
	s.Start = f.Start.Value // 00:00 when absent
	s.Duration = c.duration("duration", f.Duration, "", 1)
	s.Warmup = c.duration("warmup", f.Warmup, "0s", 0)
	s.Window = c.duration("window", f.Window, defaultWindow, 1)
	if s.Duration > 0 && s.Warmup >= s.Duration {
		c.add("warmup", "must be shorter than duration %s (got %q)", f.Duration, f.Warmup)
	}
	if s.Duration > 0 && s.Window > 0 {
		if nw := s.Duration/s.Window + min(s.Duration%s.Window, 1); nw > maxWindows {
			c.add("window", "gives %d windows over duration %s; at most %d are allowed (use a wider window)", nw, f.Duration, maxWindows)
		}
	}
	if s.Duration > maxAge {
		c.add("duration", "must be at most 10000d (got %q)", f.Duration)
	}
	resolveDetail(c, f, s)

	s.LoadFactor = 1
	if f.LoadFactor != nil {
		if lf := *f.LoadFactor; !(lf > 0) || math.IsInf(lf, 0) || lf > maxLoadFactor {
			c.add("load_factor", "must be a number above 0 and at most %d (got %v)", maxLoadFactor, lf)
		} else {
			s.LoadFactor = lf
		}
	}

	resolveCluster(c, f, s)
	resolveReplicas(c, f, s)
	resolveTable(c, f, s)
	resolveKeyspace(c, f, s)
	resolveLimits(c, f, s)
	resolveSplit(c, f, s)
	resolveCopies(c, f, s)
	resolvePlacement(c, f, s)
	resolveStreams(c, f, s)
	resolveQueries(c, s)
	resolveCache(c, f, s)
	resolveActions(c, f, s)
	resolveDetect(c, f, s)
	resolveClaims(c, f, s)
	checkMemory(c, s)
	checkWork(c, s)
	return s, c.probs
}

// checkMemory refuses scenarios whose time series would not fit: every shard keeps about
// 24 bytes per window, and every stream a latency histogram of up to 28 KB per window.
// A variant that splits shards keeps series for as many shards as it may reach.
// MaxRequests bounds the requests a variant's streams issue in a run: at the engine's
// 5 to 10 million requests per second, about half an hour of simulation.
const MaxRequests = 10_000_000_000

// Requests returns the number of requests the variant's streams are expected to issue in
// the run (the integral of their rates), before retries.
func (s *Resolved) Requests() float64 {
	total := 0.0
	for i := range s.Streams {
		if len(s.Streams[i].Schedule) == 0 {
			continue
		}
		total += s.Streams[i].Integral(0, int64(s.Duration))
	}
	return total
}

// checkWork refuses a run that would issue more than MaxRequests requests: a rate of 10^12
// requests per second on a bounded queue rejected every request and never finished.
func checkWork(c *checker, s *Resolved) {
	if s.Duration <= 0 || len(s.Streams) == 0 || len(c.probs) > 0 {
		return // the problems found already say what to fix first
	}
	total, top, topN := 0.0, 0, -1.0
	for i := range s.Streams {
		n := s.Streams[i].Integral(0, int64(s.Duration))
		if math.IsNaN(n) {
			return // a stream with a bad rate, reported at its key
		}
		total += n
		if n > topN {
			top, topN = i, n
		}
	}
	if total > MaxRequests {
		c.add(fmt.Sprintf("streams[%d]", top), "the streams would issue about %.3g requests in the run (this one %.3g); at most %.0e are allowed: lower the rates, the load_factor or the duration",
			total, topN, float64(MaxRequests))
	}
}

// Memory a run takes, as the process's peak RSS (measured figures in memory_test.go): a
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
	bytesPerSubrequest = 62
	MaxRunMemory       = 4 << 30 // the most a whole run (every variant, every output) may take
	maxRunMemoryText   = "4 GB"
)

// MemoryBytes estimates the live bytes this variant adds to a run: its time series, its
// latency histograms, and the text written from them (see bytesPerCell).
func (s *Resolved) MemoryBytes() float64 {
	if s.Window <= 0 || s.Duration <= 0 {
		return 0
	}
	windows := float64(s.Duration/s.Window + min(s.Duration%s.Window, 1))
	if s.Streamed() {
		return s.streamedBytes(windows) + s.histBytes(windows) + float64(len(s.Streams))*bytesPerStreamResult
	}
	shards := float64(max(s.Shards, s.MaxShards) + len(s.Nodes))
	return windows*shards*bytesPerCell + s.histBytes(windows) + float64(max(s.Shards, s.MaxShards))*(bytesPerShard+bytesPerKeptShard) +
		float64(len(s.Streams))*bytesPerStreamResult
}

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
func (s *Resolved) histBytes(windows float64) float64 {
	sw := windows * float64(len(s.Streams))
	return min(sw*bytesPerHist, 1.1*s.Requests()*bytesPerHistCell) + sw*bytesPerWindow
}

// FixedBytes estimates the memory a running variant's engine allocates at its full size
// when it is built and frees after the run, resident as its pages are touched: the
// cache's entries and index (allocated at cache.capacity), and each point stream's per-key
// latency statistics (detect.max_keys slots and an index of twice as many, filled by one
// request in detect.sample_every). These are not heap that grows between collections, so
// RunMemory counts them once, for the variants that run at once.
func (s *Resolved) FixedBytes() float64 {
	b := 0.0
	if c := s.Cache; c != nil && c.Capacity > 0 {
		b += float64(c.Capacity)*bytesPerCacheEntry + pow2At(2*c.Capacity)*4
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

// bytesPerCacheEntry is sim's cache entry (a key, four times, LRU and single-flight links);
// bytesPerDetectKey a tracked key's id, count, latency sum and shard, with what the
// sketches keep beside them (measured: six streams of a million keys each, 1,159 MB).
const (
	bytesPerCacheEntry = 64
	bytesPerDetectKey  = 77
)

// pow2At is the least power of two at or above n (at least 8).
func pow2At(n int) float64 {
	p := 8
	for p < n {
		p <<= 1
	}
	return float64(p)
}

// RunMemory estimates the peak memory of a run of these variants, parallel of them at
// once, and says whether it fits in MaxRunMemory; when it does not, the message says what
// to lower. held[i] is the most subrequests variant i holds at once (those in service,
// and the backlog of a run that may saturate); nil counts a full backlog for each.
func RunMemory(variants []*Resolved, parallel int, held []float64) (bytes float64, problem string) {
	live := 0.0
	most := 0
	var holds, fixed []float64
	for i, v := range variants {
		live += v.MemoryBytes()
		if v.MemoryBytes() > variants[most].MemoryBytes() {
			most = i
		}
		h := float64(sim.DefaultMaxQueued)
		if held != nil {
			h = held[i]
		}
		holds = append(holds, h)
		fixed = append(fixed, v.FixedBytes())
	}
	slices.Sort(holds)
	slices.Sort(fixed)
	run := 0.0
	for k := 0; k < min(max(parallel, 1), len(holds)); k++ {
		live += holds[len(holds)-1-k] * bytesPerSubrequest
		run += fixed[len(fixed)-1-k]
	}
	bytes = bytesBase + heapGrowth*live + run
	if bytes <= MaxRunMemory || len(variants) == 0 {
		return bytes, ""
	}
	if run > heapGrowth*live {
		// The cache's table and the per-key statistics, allocated at their full size.
		return bytes, fmt.Sprintf("the run needs about %.1f GB, %.1f GB of it for the cache's entries (cache.capacity) and the per-key latency statistics (detect.max_keys, detect.sample_every) of the variants that run at once; at most %s is allowed: lower cache.capacity or detect.max_keys, or run fewer variants at once (-j)",
			bytes/(1<<30), run/(1<<30), maxRunMemoryText)
	}
	waiting := 0.0
	for k := 0; k < min(max(parallel, 1), len(holds)); k++ {
		waiting += holds[len(holds)-1-k] * bytesPerSubrequest
	}
	if waiting > live-waiting {
		return bytes, fmt.Sprintf("the run needs about %.1f GB, %.1f GB of it for the requests it may hold at once: a queue or a row lock's waiters may grow to %d before the run stops as saturated; at most %s is allowed: lower the rates, or run fewer variants at once (-j)",
			bytes/(1<<30), heapGrowth*waiting/(1<<30), sim.DefaultMaxQueued, maxRunMemoryText)
	}
	v := variants[most]
	windows := v.Duration/v.Window + min(v.Duration%v.Window, 1)
	return bytes, fmt.Sprintf("the run needs about %.1f GB: %d variant(s), the largest with %d windows x (%d shards + %d nodes) of time series and the CSV files written from them; at most %s is allowed: use a wider window, fewer variants (--variant) or fewer shards",
		bytes/(1<<30), len(variants), windows, max(v.Shards, v.MaxShards), len(v.Nodes), maxRunMemoryText)
}

func checkMemory(c *checker, s *Resolved) {
	if s.Window <= 0 || s.Duration <= 0 {
		return
	}
	windows := int64(s.Duration/s.Window + min(s.Duration%s.Window, 1))
	shards, what := max(s.Shards, s.MaxShards), "shards and nodes"
	if shards > s.Shards {
		what = "shards (keyspace.split.max_shards) and nodes"
	}
	if s.Streamed() {
		// The shard series go to shards.csv as the windows close; the node series stay.
		if cells := windows * int64(len(s.Nodes)); cells > maxSeriesCells {
			c.add("window", "%d windows x %d nodes need about %d MB of node time series (the shard series are streamed to shards.csv); at most %d cells (about %d MB) are allowed: use a wider window",
				windows, len(s.Nodes), cells*bytesPerNodeCell>>20, maxSeriesCells, maxSeriesCells*bytesPerNodeCell>>20)
		}
	} else if cells := windows * int64(shards+len(s.Nodes)); cells > maxSeriesCells {
		c.add("window", "%d windows x %d %s need about %d MB of time series; at most %d cells (about %d MB) are allowed: use a wider window",
			windows, shards+len(s.Nodes), what, cells*24>>20, maxSeriesCells, maxSeriesCells*24>>20)
	}
	if hists := windows * int64(len(s.Streams)); hists > maxStreamWindows {
		c.add("window", "%d windows x %d streams keep %d latency histograms; at most %d stream-windows are allowed: use a wider window",
			windows, len(s.Streams), hists, maxStreamWindows)
	}
}

func resolveCluster(c *checker, f *File, s *Resolved) {
	cl := &f.Cluster
	nodes := c.requiredCount("cluster.nodes", "nodes", cl.Nodes, maxNodes)
	cores := c.intAtLeast("cluster.cores", cl.Cores, defaultCores, 1)
	limit := c.intAtLeast("cluster.queue_limit", cl.QueueLimit, 0, 0)
	if s.Network = c.duration("cluster.network", cl.Network, "0s", 0); s.Network > maxNetwork {
		c.add("cluster.network", "must be at most 1h, a one-way delay (got %q)", cl.Network)
		s.Network = 0
	}
	s.Nodes = make([]sim.Node, nodes)
	for i := range s.Nodes {
		s.Nodes[i] = sim.Node{Cores: cores, QueueLimit: limit}
	}
	seen := map[int]bool{}
	for i, n := range cl.Node {
		key := fmt.Sprintf("cluster.node[%d]", i)
		if n.ID == nil {
			c.add(key+".id", "required (the node's index, 0 to nodes-1)")
			continue
		}
		id := *n.ID
		if id < 0 || (nodes > 0 && id >= nodes) {
			c.add(key+".id", "no such node: ids run from 0 to %d (got %d)", nodes-1, id)
			continue
		}
		if seen[id] {
			c.add(key+".id", "node %d is overridden twice", id)
			continue
		}
		seen[id] = true
		if nodes == 0 {
			continue
		}
		s.Nodes[id].Cores = c.intAtLeast(key+".cores", n.Cores, s.Nodes[id].Cores, 1)
		s.Nodes[id].QueueLimit = c.intAtLeast(key+".queue_limit", n.QueueLimit, s.Nodes[id].QueueLimit, 0)
	}
}

func resolveTable(c *checker, f *File, s *Resolved) {
	t := &f.Table
	s.TableName = t.Name
	if s.TableName == "" {
		s.TableName = "rows"
	}
	s.History = c.duration("table.history", t.History, defaultHistory, 0)
	if s.History > maxAge {
		c.add("table.history", "must be at most 10000d (got %q): time-ordered ids cover about 34 years either side of the start", t.History)
	}
	if len(t.Fields) == 0 {
		c.add("table.fields", "required: at least one field, e.g. order_id = { gen = \"snowflake\" }")
	}
	if len(t.Fields) > maxTableFields {
		c.add("table.fields", "at most %d fields are allowed (got %d)", maxTableFields, len(t.Fields))
	}
	for name := range t.Fields {
		s.FieldNames = append(s.FieldNames, name)
	}
	slices.Sort(s.FieldNames)
	s.Fields = make([]FieldSpec, len(s.FieldNames))
	for i, name := range s.FieldNames {
		key := "table.fields." + name
		if !identRE.MatchString(name) {
			c.add(key, "a field name must be letters, digits and underscores")
		}
		s.Fields[i] = resolveField(c, key, t.Fields[name])
	}
}

func resolveField(c *checker, key string, f Field) FieldSpec {
	fs := FieldSpec{Gen: f.Gen, DeclaredHere: true}
	// params lists which optional parameters each generator takes.
	params := map[Gen][]string{
		"uniform":     {"n"},
		"zipf":        {"n", "s", "scramble"},
		"hotspot":     {"n", "hot_fraction", "hot_ops"},
		"categorical": {"values", "count", "weights"},
	}
	given := map[string]bool{
		"n": f.N != nil, "s": f.S != nil, "scramble": f.Scramble != nil,
		"hot_fraction": f.HotFraction != nil, "hot_ops": f.HotOps != nil,
		"values": f.Values != nil, "count": f.Count != nil, "weights": f.Weights != nil,
	}
	if f.Gen == "" {
		gens := make([]string, len(Gens))
		for i, g := range Gens {
			gens[i] = string(g)
		}
		c.add(key+".gen", "required: one of %s", strings.Join(quoteAll(gens), ", "))
		return fs
	}
	for _, p := range []string{"n", "s", "scramble", "hot_fraction", "hot_ops", "values", "count", "weights"} {
		if given[p] && !slices.Contains(params[f.Gen], p) {
			c.add(key+"."+p, "does not apply to gen = %q", f.Gen)
		}
	}
	needN := func() {
		switch {
		case f.N == nil:
			c.add(key+".n", "required for gen = %q (the number of distinct ids)", f.Gen)
		case *f.N < 1:
			c.add(key+".n", "must be at least 1 (got %d)", *f.N)
		default:
			fs.N = uint64(*f.N)
			fs.Cardinality = fs.N
		}
	}
	switch f.Gen {
	case "uniform":
		needN()
	case "zipf":
		needN()
		fs.S = defaultZipfS
		if f.S != nil {
			if *f.S < 0 || math.IsNaN(*f.S) || math.IsInf(*f.S, 0) {
				c.add(key+".s", "must be a number >= 0 (got %v)", *f.S)
			} else {
				fs.S = *f.S
			}
		}
		fs.Scramble = f.Scramble == nil || *f.Scramble
	case "hotspot":
		needN()
		fs.HotFraction, fs.HotOps = defaultHotFrac, defaultHotOps
		if f.HotFraction != nil {
			if !(*f.HotFraction > 0 && *f.HotFraction < 1) {
				c.add(key+".hot_fraction", "must be between 0 and 1, exclusive (got %v)", *f.HotFraction)
			} else {
				fs.HotFraction = *f.HotFraction
			}
		}
		if f.HotOps != nil {
			if !(*f.HotOps >= 0 && *f.HotOps <= 1) {
				c.add(key+".hot_ops", "must be between 0 and 1 (got %v)", *f.HotOps)
			} else {
				fs.HotOps = *f.HotOps
			}
		}
	case "categorical":
		resolveCategorical(c, key, f, &fs)
	case "snowflake", "sequence", "time", "uuidv7", "ulid", "ksuid":
		fs.TimeOrdered = true
	}
	return fs
}

func resolveCategorical(c *checker, key string, f Field, fs *FieldSpec) {
	switch {
	case f.Values != nil && f.Count != nil:
		c.add(key, "give values or count, not both")
		return
	case f.Values != nil:
		if len(f.Values) == 0 {
			c.add(key+".values", "must list at least one value")
			return
		}
		if len(f.Values) > maxCategorical {
			c.add(key+".values", "must list at most %d values (got %d)", maxCategorical, len(f.Values))
			return
		}
		seen := map[string]bool{}
		for i, v := range f.Values {
			label := v.String()
			if seen[label] {
				c.add(fmt.Sprintf("%s.values[%d]", key, i), "duplicate value %q", label)
			}
			seen[label] = true
			fs.Labels = append(fs.Labels, label)
		}
		fs.Count = len(f.Values)
	case f.Count != nil:
		if *f.Count < 1 || *f.Count > maxCategorical {
			c.add(key+".count", "must be between 1 and %d (got %d)", maxCategorical, *f.Count)
			return
		}
		fs.Count = *f.Count
	default:
		c.add(key, "gen = \"categorical\" needs values = [...] or count = N")
		return
	}
	fs.Cardinality = uint64(fs.Count)
	if f.Weights != nil {
		if len(f.Weights) != fs.Count {
			c.add(key+".weights", "has %d entries for %d values", len(f.Weights), fs.Count)
			return
		}
		sum := 0.0
		for i, w := range f.Weights {
			if !(w >= 0) || math.IsInf(w, 0) {
				c.add(fmt.Sprintf("%s.weights[%d]", key, i), "must be a number >= 0 (got %v)", w)
				return
			}
			sum += w
		}
		if math.IsInf(sum, 0) {
			c.add(key+".weights", "sum to more than a float64 holds; scale them down")
			return
		}
		if sum <= 0 {
			c.add(key+".weights", "must not all be zero")
			return
		}
		fs.Weights = f.Weights
	}
}

func (s *Resolved) fieldIndex(name string) int {
	i, ok := slices.BinarySearch(s.FieldNames, name)
	if !ok {
		return -1
	}
	return i
}

var bucketFns = map[string]sim.Time{"minute": sim.Minute, "hour": sim.Hour, "day": 24 * sim.Hour}

func resolveKeyspace(c *checker, f *File, s *Resolved) {
	k := &f.Keyspace
	s.Scheme = oneOf(c, "keyspace.scheme", string(k.Scheme), "hash", "hash", "range", "directory", "redis_cluster")
	if s.Scheme == "redis_cluster" && k.Shards == nil && len(k.Slots) > 0 {
		s.Shards = len(k.Slots) // one shard a slot range
	} else {
		s.Shards = c.requiredCount("keyspace.shards", "shards", k.Shards, maxShards)
	}
	s.Hash = oneOf(c, "keyspace.hash", string(k.Hash), "modulo", "modulo", "ring")
	// Options of another scheme are ignored rather than refused, so that a variant can
	// switch scheme without unsetting what the base scenario set.
	s.Vnodes = c.intAtLeast("keyspace.vnodes", k.Vnodes, defaultVnodes, 1)
	if s.Shards > 0 && s.Vnodes > maxRingPoints/s.Shards {
		c.add("keyspace.vnodes", "shards x vnodes must be at most %d ring points (got %d x %d)", maxRingPoints, s.Shards, s.Vnodes)
	}
	if k.Splits != "" && k.Splits != "history" {
		c.add("keyspace.splits", "must be \"history\" (got %q)", k.Splits)
	}
	if s.Scheme == "range" && s.History <= 0 {
		c.add("table.history", "must be positive with scheme = \"range\": the initial split points are the quantiles of the keys written during the history")
	}
	salt := c.intAtLeast("keyspace.salt", k.Salt, 0, 0)
	if salt > maxSalt {
		c.add("keyspace.salt", "must be at most %d buckets (got %d): a read of a salted key visits every bucket", maxSalt, salt)
		salt = 0
	}
	s.Salt = salt
	mode := oneOf(c, "keyspace.salt_mode", string(k.SaltMode), "random", "random", "round_robin", "hash")
	s.SaltMode = map[string]keyspace.SaltMode{"random": keyspace.SaltRandom, "round_robin": keyspace.SaltRoundRobin, "hash": keyspace.SaltHash}[mode]
	s.SaltField = -1
	if k.SaltField != "" {
		if s.SaltField = s.fieldIndex(k.SaltField); s.SaltField < 0 {
			c.add("keyspace.salt_field", "no such field %q in table.fields", k.SaltField)
		}
	} else if mode == "hash" && salt > 1 {
		c.add("keyspace.salt_field", "required with salt_mode = \"hash\" (the field the salt is derived from)")
	}

	if len(k.Key) == 0 {
		c.add("keyspace.key", "required: the partition key's parts, e.g. [\"order_id\"]")
	}
	maxParts := keyspace.MaxParts
	if salt > 1 {
		maxParts--
	}
	if len(k.Key) > maxParts {
		c.add("keyspace.key", "at most %d parts are allowed (got %d)", maxParts, len(k.Key))
		return
	}
	s.Key = k.Key
	for i, text := range k.Key {
		key := fmt.Sprintf("keyspace.key[%d]", i)
		kp, err := parseKeyPart(text)
		if err != nil {
			c.add(key, "%v", err)
			continue
		}
		fi := s.fieldIndex(kp.Field)
		if fi < 0 {
			c.addErr(key, &NoSuchFieldError{Field: kp.Field, Have: s.FieldNames})
			continue
		}
		part := keyspace.Part{Field: fi, Name: text}
		switch kp.Fn {
		case "":
			part.Kind = keyspace.FieldPart
		case "minute", "hour", "day", "bucket":
			if !s.Fields[fi].TimeOrdered {
				c.add(key, "%s() needs a time-ordered field (gen = \"time\", \"snowflake\", \"sequence\", \"uuidv7\", \"ulid\" or \"ksuid\"); %q is gen = %q", kp.Fn, kp.Field, s.Fields[fi].Gen)
				continue
			}
			part.Kind = keyspace.TimeBucketPart
			part.Width = int64(bucketFns[kp.Fn])
			if kp.Fn == "bucket" {
				w, err := units.ParseDuration(kp.Arg)
				if err != nil || w <= 0 {
					c.add(key, "bucket width %q must be a positive duration", kp.Arg)
					continue
				}
				part.Width = int64(w)
			}
		case "hash":
			var n uint64
			if _, err := fmt.Sscanf(kp.Arg, "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != kp.Arg {
				c.add(key, "hash modulus %q must be a whole number >= 1", kp.Arg)
				continue
			}
			part.Kind, part.Mod = keyspace.HashPart, n
		}
		s.Parts = append(s.Parts, part)
	}
	resolveDirectory(c, k, s)
	resolveSlots(c, f, s)
}

// resolveSlots checks redis_cluster's slot ranges (docs/keys.md, "Redis Cluster"): given,
// they must cover the 16,384 slots once, one range a shard; omitted, the slots are split
// evenly over the shards as redis-cli --cluster create splits them over the masters.
func resolveSlots(c *checker, f *File, s *Resolved) {
	k := &f.Keyspace
	if s.Scheme != "redis_cluster" {
		return // like the other schemes' options, ignored under another scheme
	}
	if k.Split != nil {
		c.add("keyspace.split", "not with scheme = \"redis_cluster\": a Redis Cluster moves slots only when told to (resharding), never by itself")
	}
	if s.Salt > 1 {
		for i := range f.Streams {
			if f.Streams[i].Trace != nil {
				c.add("keyspace.salt", "not with scheme = \"redis_cluster\" and a stream that replays a log (streams[%d]): the log's key text decides its slot, a salt bucket cannot be added to it", i)
				break
			}
		}
	}
	if len(k.Slots) == 0 {
		if s.Shards > keyspace.RedisSlots {
			c.add("keyspace.shards", "must be at most %d with scheme = \"redis_cluster\", one slot range a shard (got %d)", keyspace.RedisSlots, s.Shards)
			return
		}
		if s.Shards > 0 {
			s.Slots = keyspace.EvenSlots(s.Shards)
		}
		return
	}
	if len(k.Slots) != s.Shards && s.Shards > 0 {
		c.add("keyspace.slots", "has %d slot ranges for keyspace.shards = %d: each range is one shard (leave shards out to take the ranges' count)", len(k.Slots), s.Shards)
		return
	}
	ranges := make([]keyspace.SlotRange, 0, len(k.Slots))
	for i, r := range k.Slots {
		if len(r) != 2 {
			c.add(fmt.Sprintf("keyspace.slots[%d]", i), "must be [first, last] (got %d numbers)", len(r))
			return
		}
		ranges = append(ranges, keyspace.SlotRange{First: r[0], Last: r[1]})
	}
	if err := keyspace.CheckSlots(ranges); err != nil {
		c.add("keyspace.slots", "%v", err)
		return
	}
	s.Slots = ranges
}

// DirSpec is a validated directory entry.
type DirSpec struct {
	Part   int // key part index, salt included
	Value  uint64
	Shards []int
}

func resolveDirectory(c *checker, k *Keyspace, s *Resolved) {
	if s.Scheme != "directory" {
		return // entries of another scheme are ignored, like its other options
	}
	if s.Scheme == "directory" && len(k.Directory) == 0 {
		c.add("keyspace.directory", "required with scheme = \"directory\": [[keyspace.directory]] entries with field, value and shards")
		return
	}
	type claim struct {
		part  int
		value uint64
	}
	claimed := map[claim]int{}
	shardUsed := map[int]bool{}
	for i, e := range k.Directory {
		key := fmt.Sprintf("keyspace.directory[%d]", i)
		fi := s.fieldIndex(e.Field)
		if fi < 0 {
			c.add(key+".field", "no such field %q in table.fields", e.Field)
			continue
		}
		part := -1
		for j, p := range s.Parts {
			if p.Kind == keyspace.FieldPart && p.Field == fi {
				part = j
				break
			}
		}
		if part < 0 {
			c.add(key+".field", "%q must be a plain part of keyspace.key for the directory to route by it", e.Field)
			continue
		}
		if s.Salt > 1 {
			part++
		}
		value, ok := fieldValue(s.Fields[fi], e.Value)
		if !ok {
			c.add(key+".value", "%v is not a value of field %q (%s)", e.Value, e.Field, describeValues(s.Fields[fi]))
			continue
		}
		cl := claim{part, value}
		if prev, dup := claimed[cl]; dup {
			c.add(key+".value", "value %v of %q is already placed by keyspace.directory[%d]", e.Value, e.Field, prev)
			continue
		}
		claimed[cl] = i
		if len(e.Shards) == 0 {
			c.add(key+".shards", "required: the shards that hold these rows")
			continue
		}
		bad := false
		for j, sh := range e.Shards {
			if s.Shards > 0 && (sh < 0 || sh >= s.Shards) {
				c.add(fmt.Sprintf("%s.shards[%d]", key, j), "no such shard: shards run from 0 to %d (got %d)", s.Shards-1, sh)
				bad = true
				continue
			}
			shardUsed[sh] = true
		}
		if !bad {
			s.Directory = append(s.Directory, DirSpec{Part: part, Value: value, Shards: e.Shards})
		}
	}
	if s.Shards > 0 && len(shardUsed) >= s.Shards {
		c.add("keyspace.directory", "the entries name all %d shards, leaving none for the rows they do not list", s.Shards)
	}
}

// fieldValue maps a directory value as written to the field's internal value: a
// categorical label to its index, an integer to itself.
func fieldValue(f FieldSpec, v Scalar) (uint64, bool) {
	if f.Gen == "categorical" {
		label := v.String()
		if f.Labels == nil {
			n, ok := v.Int, v.IsInt
			return uint64(n), ok && n >= 0 && int(n) < f.Count
		}
		for i, l := range f.Labels {
			if l == label {
				return uint64(i), true
			}
		}
		return 0, false
	}
	n, ok := v.Int, v.IsInt
	if !ok || n < 0 || (f.Cardinality > 0 && uint64(n) >= f.Cardinality) {
		return 0, false
	}
	return uint64(n), true
}

func describeValues(f FieldSpec) string {
	switch {
	case f.Labels != nil:
		return "one of " + strings.Join(quoteAll(f.Labels), ", ")
	case f.Cardinality > 0:
		return fmt.Sprintf("an integer from 0 to %d", f.Cardinality-1)
	}
	return "a non-negative integer"
}

// resolvePlacement checks how shards are placed on nodes; build.Placement places them.
func resolvePlacement(c *checker, f *File, s *Resolved) {
	cl := &f.Cluster
	placement := Placement(oneOf(c, "cluster.placement", string(cl.Placement), "", "round_robin", "random", "explicit"))
	if placement == "" {
		placement = PlaceRoundRobin
		if cl.ShardNodes != nil {
			placement = PlaceExplicit
		}
	}
	s.Placement = placement
	if cl.ShardNodes != nil && placement != PlaceExplicit {
		c.add("cluster.shard_nodes", "applies only to placement = \"explicit\"")
	}
	nodes := len(s.Nodes)
	if s.Shards == 0 || nodes == 0 || placement != PlaceExplicit {
		return
	}
	if len(cl.ShardNodes) != s.Shards {
		c.add("cluster.shard_nodes", "must list the node of each of the %d shards (got %d entries)", s.Shards, len(cl.ShardNodes))
		return
	}
	for i, n := range cl.ShardNodes {
		if n < 0 || n >= nodes {
			c.add(fmt.Sprintf("cluster.shard_nodes[%d]", i), "no such node: ids run from 0 to %d (got %d)", nodes-1, n)
		}
	}
	s.ShardNodes = slices.Clone(cl.ShardNodes)
}

func resolveStreams(c *checker, f *File, s *Resolved) {
	if len(f.Streams) == 0 {
		c.add("streams", "required: at least one [[streams]] entry")
	}
	names := map[string]bool{}
	for i, st := range f.Streams {
		key := fmt.Sprintf("streams[%d]", i)
		ss := StreamSpec{Name: st.Name}
		switch {
		case st.Name == "":
			c.add(key+".name", "required")
		case !streamNameRE.MatchString(st.Name):
			c.add(key+".name", "must be letters, digits, '_', '-' or '.' (got %q)", st.Name)
		case len(st.Name) > maxNameLength:
			c.add(key+".name", "must be at most %d characters: it names chart files (got %d)", maxNameLength, len(st.Name))
		case names[st.Name]:
			c.add(key+".name", "duplicate stream name %q", st.Name)
		}
		names[st.Name] = true
		if st.Trace != nil {
			// A replayed stream: its ops and arrivals come from the log (trace.go).
			st.Op, st.Rate = "write", new(float64)
		}
		switch st.Op {
		case "write":
			ss.Op = sim.Write
		case "read":
			ss.Op = sim.Read
		case "scan":
			ss.Op = sim.Scan
		case "":
			c.add(key+".op", "required: \"write\", \"read\" or \"scan\"")
		default:
			c.add(key+".op", "must be one of \"write\", \"read\", \"scan\" (got %q)", st.Op)
		}
		if st.Clients == nil {
			resolveRate(c, key, st, s, &ss)
		}
		ss.Uniform = oneOf(c, key+".arrival", string(st.Arrival), "poisson", "poisson", "uniform") == "uniform"
		ss.Burst = resolveBurst(c, s, key+".burst", st.Burst)
		if !st.Cost.Set() {
			c.add(key+".cost", "required: the mean CPU time of one request, e.g. \"0.3ms\"")
		} else if ss.Cost = c.duration(key+".cost", st.Cost, "", 1); ss.Cost > maxCost {
			c.add(key+".cost", "must be at most %s (got %q)", maxCost, st.Cost)
		}
		switch oneOf(c, key+".service", string(st.Service), "exponential", "exponential", "constant", "lognormal") {
		case "constant":
			ss.Service.Kind = sim.Constant
		case "lognormal":
			ss.Service.Kind = sim.Lognormal
		}
		ss.Service.CV = defaultCV
		if st.CV != nil {
			if ss.Service.Kind != sim.Lognormal {
				c.add(key+".cv", "applies only to service = \"lognormal\"")
			} else if !(*st.CV > 0) || math.IsInf(*st.CV, 0) {
				c.add(key+".cv", "must be a positive number (got %v)", *st.CV)
			} else {
				ss.Service.CV = *st.CV
			}
		}
		ss.SLO = resolveSLO(c, key+".slo", st.SLO)
		ss.Client = resolveClient(c, key, st)
		ss.RetryLabel = resolveRetryLabel(c, key+".retry_label", st.RetryLabel, ss.Client.Retries)
		resolveRows(c, key, st, &ss)
		ss.Age = resolveAge(c, key+".age", st.Age)
		if st.Age.Dist != "" && ss.Op == sim.Write {
			c.add(key+".age", "applies only to reads and scans (a write's row time is now)")
		}
		if len(st.Where) > 0 && ss.Op != sim.Scan {
			c.add(key+".where", "applies only to op = \"scan\"")
		}
		ss.Where = map[string]WhereSpec{}
		for _, name := range sortedKeys(st.Where) {
			wk := key + ".where." + name
			fi := s.fieldIndex(name)
			if fi < 0 {
				c.add(wk, "no such field %q in table.fields", name)
				continue
			}
			text := st.Where[name]
			if text == "=" {
				ss.Where[name] = WhereSpec{Eq: true}
				continue
			}
			d, err := units.ParseDuration(text)
			if err != nil || d <= 0 {
				c.add(wk, "must be \"=\" (an equality) or a positive duration (the last D of a time field) (got %q)", text)
				continue
			}
			if !s.Fields[fi].TimeOrdered {
				c.add(wk, "a duration constrains only a time-ordered field (gen = \"time\", \"snowflake\", \"sequence\", \"uuidv7\", \"ulid\" or \"ksuid\"); %q is gen = %q", name, s.Fields[fi].Gen)
				continue
			}
			ss.Where[name] = WhereSpec{Span: d}
		}
		ss.Fields = slices.Clone(s.Fields)
		overrides := make([]string, 0, len(st.Fields))
		for name := range st.Fields {
			overrides = append(overrides, name)
		}
		slices.Sort(overrides)
		for _, name := range overrides {
			fk := key + ".fields." + name
			fi := s.fieldIndex(name)
			if fi < 0 {
				c.add(fk, "no such field %q in table.fields", name)
				continue
			}
			fs := resolveField(c, fk, st.Fields[name])
			if fs.TimeOrdered != s.Fields[fi].TimeOrdered && fs.Gen != "" && s.Fields[fi].Gen != "" {
				c.add(fk+".gen", "a stream cannot change whether %q is time-ordered (table: %q, stream: %q)", name, s.Fields[fi].Gen, fs.Gen)
			}
			ss.Fields[fi] = fs
		}
		if f.Streams[i].Trace != nil {
			// A replayed log decides arrivals and operations; locks and closed-loop
			// clients are not modelled on a replay yet.
			for _, k := range []struct {
				name string
				set  bool
			}{{"lock", st.Lock.Set()}, {"lock_timeout", st.LockTimeout.Set()}, {"clients", st.Clients != nil}, {"think", st.Think.Set()}} {
				if k.set {
					c.add(key+"."+k.name, "a trace stream replays its log as it is: remove %s", k.name)
				}
			}
			s.Streams = append(s.Streams, resolveTrace(c, key, f, f.Streams[i], s, ss)...)
			continue
		}
		resolveLock(c, key, st, &ss)
		resolveClients(c, key, st, s, &ss)
		s.Streams = append(s.Streams, ss)
	}
}

func resolveRate(c *checker, key string, st Stream, s *Resolved, ss *StreamSpec) {
	switch {
	case st.Rate != nil && st.Schedule != nil:
		c.add(key+".rate", "give rate or schedule, not both")
	case st.Rate != nil:
		if !(*st.Rate >= 0) || math.IsInf(*st.Rate, 0) {
			c.add(key+".rate", "must be a number of requests per second >= 0 (got %v)", *st.Rate)
			return
		}
		ss.Schedule = workload.Schedule{{At: 0, Rate: *st.Rate * s.LoadFactor}}
	case st.Schedule != nil:
		if len(st.Schedule) == 0 || len(st.Schedule) > maxScheduleLength {
			c.add(key+".schedule", "must have between 1 and %d points (got %d)", maxScheduleLength, len(st.Schedule))
			return
		}
		prev := sim.Time(math.MinInt64)
		reading := readSchedule(st.Schedule, s.Start) // schedule.go: a run that starts inside its schedule
		for j, p := range st.Schedule {
			pk := fmt.Sprintf("%s.schedule[%d]", key, j)
			if !p.At.Set() {
				c.add(pk+".at", "required: a clock time such as \"08:00\" or a duration since the start such as \"2h\"")
				continue
			}
			at, err := p.At.At(s.Start)
			if err != nil {
				c.add(pk+".at", "%v", err)
				continue
			}
			if reading.at != nil {
				at = reading.at[j]
			} else if at < 0 {
				c.add(pk+".at", "must not be before the start of the run (got %q)", p.At)
				continue
			}
			if at <= prev {
				msg := fmt.Sprintf("schedule points must be in increasing time order (%q is not after the point before it)", p.At)
				if reading.hint != "" {
					msg += "; " + reading.hint
				}
				c.add(pk+".at", "%s", msg)
			}
			prev = at
			if p.Rate == nil {
				c.add(pk+".rate", "required")
				continue
			}
			if !(*p.Rate >= 0) || math.IsInf(*p.Rate, 0) {
				c.add(pk+".rate", "must be a number of requests per second >= 0 (got %v)", *p.Rate)
				continue
			}
			ss.Schedule = append(ss.Schedule, workload.Point{At: int64(at), Rate: *p.Rate * s.LoadFactor})
		}
		if reading.at != nil && len(ss.Schedule) == len(st.Schedule) {
			ss.Schedule = fromStart(ss.Schedule)
		}
	default:
		c.add(key+".rate", "required: rate = N (requests per second) or schedule = [ { at, rate }, ... ]")
	}
}

// maxBurstFactor bounds a burst's rate multiplier.
const maxBurstFactor = 1_000_000

// resolveBurst validates a stream's burst table; nil when there is none or it is invalid.
func resolveBurst(c *checker, s *Resolved, key string, b *Burst) *workload.Burst {
	if b == nil {
		return nil
	}
	before := len(c.probs)
	var every, width, offset sim.Time
	if !b.Every.Set() {
		c.add(key+".every", "required: the period of the bursts, a duration such as \"1m\"")
	} else if every = c.duration(key+".every", b.Every, "", 1); every > maxAge {
		c.add(key+".every", "must be at most 10000d (got %q)", b.Every)
	}
	if !b.Width.Set() {
		c.add(key+".width", "required: how long each burst lasts, a duration shorter than every, such as \"2s\"")
	} else if width = c.duration(key+".width", b.Width, "", 1); every > 0 && width >= every {
		c.add(key+".width", "must be shorter than every = %q (got %q): a burst is the first width of each period", b.Every, b.Width)
	}
	switch {
	case b.Factor == nil:
		c.add(key+".factor", "required: the rate multiplier inside a burst, a number >= 1 such as 10")
	case !(*b.Factor >= 1) || *b.Factor > maxBurstFactor:
		c.add(key+".factor", "must be a number from 1 to %d: the rate inside a burst is rate x factor (got %v)", maxBurstFactor, *b.Factor)
	}
	if b.Offset.Set() {
		if offset = c.duration(key+".offset", b.Offset, "", 0); every > 0 && offset >= every {
			c.add(key+".offset", "must be less than every = %q (got %q): bursts start at offset + k x every", b.Every, b.Offset)
		}
	}
	if len(c.probs) > before {
		return nil
	}
	// Bursts follow the wall clock: offset is measured from the top of the clock's `every`
	// (with start = "09:00:30" and every = "1m", the burst still begins at 09:01:00), so it
	// becomes, from t = 0, (offset - start) mod every.
	shift := (offset - s.Start) % every
	if shift < 0 {
		shift += every
	}
	return &workload.Burst{Every: int64(every), Width: int64(width), Offset: int64(shift), Factor: *b.Factor}
}

func resolveAge(c *checker, key string, a Age) AgeSpec {
	switch a.Dist {
	case "":
		return AgeSpec{}
	case "const":
		if d := a.Value.Value; d < 0 || d > maxAge {
			c.add(key, "must be a duration from 0 to 10000d such as \"1h\", or a table { dist = \"exponential\", mean = \"1h\" } (got %q)", a.Value.Text)
			return AgeSpec{}
		}
	}
	// A distribution's mean or max was checked as it was decoded.
	return AgeSpec{Dist: a.Dist, Value: a.Value.Value}
}

// maxRowLimit bounds a scan's row limit: far more rows than any one query returns, and
// small enough that rows times a row cost stays within the nanosecond clock.
const maxRowLimit = 1_000_000_000

// maxRowCost bounds the cost of one row read.
const maxRowCost = sim.Second

// resolveRows reads a scan's row_cost and row limit (docs/scenario.md, [[streams]]
// row_cost and limit; docs/keys.md, "Rows and LIMIT").
func resolveRows(c *checker, key string, st Stream, ss *StreamSpec) {
	if st.RowCost.Set() {
		switch ss.RowCost = c.duration(key+".row_cost", st.RowCost, "", 0); {
		case ss.Op != sim.Scan:
			c.add(key+".row_cost", "applies only to op = \"scan\": a scan's CPU time per row it reads")
		case ss.RowCost > maxRowCost:
			c.add(key+".row_cost", "must be at most %s (got %q)", maxRowCost, st.RowCost)
			ss.RowCost = 0
		}
	}
	if st.Limit != nil && st.Limit.Rows != nil {
		switch n := *st.Limit.Rows; {
		case ss.Op != sim.Scan:
			c.add(key+".limit", "a whole number is a scan's row limit; a client rate limit is a table { rate = N, burst = N, overflow = \"reject\" | \"queue\" } (got %d)", n)
		case n < 1 || n > maxRowLimit:
			c.add(key+".limit", "must be between 1 and %d rows, the most rows one scan reads (got %d)", maxRowLimit, n)
		default:
			ss.RowLimit = n
		}
	}
	ss.Rows = ss.Op == sim.Scan && (st.RowCost.Set() || ss.RowLimit > 0)
}

// enumerableLimit is where a field stops being categorical: an unconstrained key part of a
// field with at most this many distinct values is enumerated (a scan visits every value's
// partition); above it the field is high-cardinality and the scan goes to every shard.
const enumerableLimit = 1024

// maxQueryPartitions bounds the partitions one scan may enumerate.
const maxQueryPartitions = 100_000

// resolveQueries works out, for every scan with a where clause, how the query constrains
// each key part (docs/keys.md, "How a read or scan is planned").
func resolveQueries(c *checker, s *Resolved) {
	for i := range s.Streams {
		ss := &s.Streams[i]
		if ss.Op != sim.Scan || len(ss.Where) == 0 || len(s.Parts) == 0 {
			continue
		}
		key := fmt.Sprintf("streams[%d].where", i)
		var q []keyspace.PartQuery
		if s.Salt > 1 {
			sq := keyspace.PartQuery{Mode: keyspace.Enumerate, Count: uint64(s.Salt)}
			if s.SaltMode == keyspace.SaltHash && s.SaltField >= 0 && ss.Where[s.FieldNames[s.SaltField]].Eq {
				sq = keyspace.PartQuery{Mode: keyspace.Known}
			}
			q = append(q, sq)
		}
		timeParts := 0
		for _, p := range s.Parts {
			name := s.FieldNames[p.Field]
			w, constrained := ss.Where[name]
			f := ss.Fields[p.Field]
			var pq keyspace.PartQuery
			switch {
			case constrained && w.Eq:
				pq.Mode = keyspace.Known
			case p.Kind == keyspace.HashPart:
				pq = keyspace.PartQuery{Mode: keyspace.Enumerate, Count: p.Mod}
			case p.Kind == keyspace.TimeBucketPart && constrained:
				pq = keyspace.PartQuery{Mode: keyspace.BucketRange, Span: int64(w.Span), Width: p.Width}
			case p.Kind == keyspace.FieldPart && constrained: // a duration on a raw time-ordered field
				pq = keyspace.PartQuery{Mode: keyspace.TimeRange, Span: int64(w.Span)}
				timeParts++
			case p.Kind == keyspace.FieldPart && f.Cardinality > 0 && f.Cardinality <= enumerableLimit:
				pq = keyspace.PartQuery{Mode: keyspace.Enumerate, Count: f.Cardinality}
			default:
				pq.Mode = keyspace.Scatter
			}
			q = append(q, pq)
		}
		if timeParts > 1 {
			c.add(key, "a scan can range over one raw time-ordered key part only (this key has %d); bucket the others with hour(), day() or bucket()", timeParts)
			continue
		}
		if n := keyspace.MaxPartitions(q); n > maxQueryPartitions {
			c.add(key, "one scan would visit up to %.0f partitions; at most %d are allowed (constrain more fields or use wider time buckets)", n, maxQueryPartitions)
			continue
		}
		ss.Query = q
	}
}

// Integral returns the stream's expected number of requests in [a, b): its schedule's
// integral, with its bursts if it has any.
func (ss *StreamSpec) Integral(a, b int64) float64 {
	if ss.Burst != nil {
		return ss.Burst.Integral(ss.Schedule, a, b)
	}
	return ss.Schedule.Integral(a, b)
}

// isControl reports the characters a name or description must not hold, since they would
// reach terminals and report.md raw: C0 and C1 controls and DEL, except a description's
// newlines and tabs.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0)
}

// CheckVariantName returns what is wrong with a variant's name, or "".
func CheckVariantName(name string) string {
	switch {
	case name == "":
		return "required: every variant needs a name"
	case len(name) > maxVariantName:
		return fmt.Sprintf("must be at most %d characters (got %d)", maxVariantName, len(name))
	case strings.ContainsRune(name, '\n') || strings.ContainsRune(name, '\t') || strings.IndexFunc(name, isControl) >= 0:
		return fmt.Sprintf("must not hold control characters such as newlines or escapes (got %q)", name)
	}
	return ""
}

// StreamShardCells is the size in shard-windows (shards x windows of one variant) above
// which `run` streams a variant's shard series (sim.Model.Sink, report.StreamSink): they go
// to shards.csv as the windows close, and the readers get a compact digest of them
// (metrics.ShardDigest). A variant that splits shards keeps them (its shards change during
// the run). Tests lower it to stream small runs.
var StreamShardCells int64 = 2_000_000

// Streamed reports whether `run` streams this variant's shard series (StreamShardCells).
func (s *Resolved) Streamed() bool {
	if s.Window <= 0 || s.Duration <= 0 || s.Split != nil || (s.Limits != nil && s.Limits.SplitForHeat) {
		return false
	}
	return s.ShardWindows() > StreamShardCells
}

// ShardWindows is the variant's shards x windows: the rows it gives shards.csv.
func (s *Resolved) ShardWindows() int64 {
	if s.Window <= 0 || s.Duration <= 0 {
		return 0
	}
	windows := int64(s.Duration/s.Window + min(s.Duration%s.Window, 1))
	return windows * int64(s.Shards)
}

// ParquetShardCells is the size in shard-windows of a variant above which `run --series
// auto` (the default) writes the per-window series as Parquet instead of CSV: about 100 MB
// of shards.csv (docs/outputs.md).
const ParquetShardCells = 2_000_000

// The memory of a streamed variant, measured as peak RSS (docs/performance.md): per node
// and window its three node series (NodeBusy, NodeCapacity, NodeMaxQueue) and the
// per-window node loads the readers derive; per window the digest's spread and top
// shards; per shard its run-wide histogram (bytesPerShard), the digest's and the ring's
// cells and its summary entries; and the digest's heat map, at most 1,000 x 1,000 cells.
const (
	bytesPerNodeCell      = 24
	bytesPerDigestWindow  = 2 << 10
	bytesPerStreamedShard = 640
	bytesPerHeatCell      = 40
)

// streamedBytes estimates a streamed variant's series, digest and per-shard state.
func (s *Resolved) streamedBytes(windows float64) float64 {
	shards := float64(s.Shards)
	heat := min(shards, 1000) * min(windows, 1000) * bytesPerHeatCell
	return windows*float64(len(s.Nodes))*bytesPerNodeCell + windows*bytesPerDigestWindow +
		shards*(bytesPerShard+bytesPerStreamedShard) + heat
}
