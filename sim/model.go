package sim

import (
	"math/rand/v2"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// Op is what a stream's requests do.
type Op uint8

const (
	Write Op = iota // one row, every field known: one shard
	Read            // point read: one row, except salt buckets the reader cannot derive
	Scan            // range or scatter-gather query: the partitions its planner names
)

func (o Op) String() string {
	switch o {
	case Write:
		return "write"
	case Read:
		return "read"
	case Scan:
		return "scan"
	}
	return "?"
}

// ServiceKind is the distribution of a subrequest's service time.
type ServiceKind uint8

const (
	Exponential ServiceKind = iota // memoryless, mean cost (M/M/c)
	Constant                       // exactly cost (M/D/c)
	Lognormal                      // mean cost, coefficient of variation CV
)

// Service describes how long one partition's work holds a core.
type Service struct {
	Kind ServiceKind
	CV   float64 // coefficient of variation, for Lognormal
}

// A Planner says which shards a request visits and how many partitions on each.
// Implementations may keep scratch state, so a planner belongs to one run.
type Planner interface {
	// Plan appends the request's visits to dst and returns it. fields holds the request's
	// field values (entries the model does not draw are zero); rowTime is the row's time.
	Plan(dst []keyspace.Visit, r *rand.Rand, fields []uint64, rowTime int64) []keyspace.Visit
}

var (
	_ Planner = (*keyspace.PointPlanner)(nil)
	_ Planner = (*keyspace.ScatterPlanner)(nil)
	_ Planner = (*keyspace.QueryPlanner)(nil)
)

// Stream is one kind of request and its arrival process.
type Stream struct {
	Name     string
	Op       Op
	Arrivals workload.Arrivals
	// Fields has one generator per table field, in table order; a nil entry is a field no
	// planner reads, which the engine does not draw.
	Fields  []workload.Generator
	Age     workload.Age // how old the row a read or scan targets is; nil means 0
	Planner Planner
	Cost    Time // mean CPU time of one partition's work
	Service Service
	// RowCost is the CPU time of one row a scan reads, added to the partitions' service
	// time (not drawn: a row costs exactly RowCost). RowsModeled says the planner's visits
	// carry rows (keyspace.Rows), which are then counted in StreamResult.RowsRead.
	RowCost     Time
	RowsModeled bool
	// KeyFields are the fields that name the row a point request reads or writes, in key
	// order: the identity of a hot key, a cache entry or a copied key. Empty for scans.
	KeyFields []int
	Client    Client
	// Clients, when positive, makes the stream closed-loop: Clients clients each issue a
	// request, wait for its outcome, think for a draw of Think, and issue the next one.
	// Arrivals is not used then.
	Clients int
	Think   Delay
}

// Delay is a random duration with mean Mean: exponential, constant, or lognormal with
// coefficient of variation CV (Kind, as a service time's).
type Delay struct {
	Kind ServiceKind
	Mean Time
	CV   float64
}

// Node is one server.
type Node struct {
	Cores      int // requests served in parallel
	QueueLimit int // requests waiting; one more is rejected; 0 means unbounded
}

// Model is everything a run needs. A Model (its planners and generators keep state) is
// used by one Run only; Run refuses it a second time.
type Model struct {
	Seed     uint64
	Duration Time // arrivals are issued in [0, Duration); requests in flight then still finish
	Warmup   Time // requests issued before Warmup are left out of the latency statistics
	Window   Time // width of every time series' buckets
	Network  Time // one-way client<->node delay
	Nodes    []Node
	// ShardNode[s] is the node that serves shard s.
	ShardNode []int
	Streams   []Stream
	// MaxQueued bounds the subrequests waiting in all queues at once (0: DefaultMaxQueued).
	// A run whose backlog passes it has diverged (its offered load exceeds what the nodes
	// serve) and stops there: Result.Saturated. queue_limit = 0 means unbounded within it.
	MaxQueued int
	// Stop, when set, is polled every few thousand events; when it reports true the run
	// stops where it is and its Result is marked Partial. It must be safe to call from the
	// goroutine running the simulation.
	Stop func() bool
	// Watch, when set, is called between events every window of simulated time (1 to 5 s)
	// with the figures so far (watch.go); when it reports true the run stops there and its
	// Result is marked Decided: its verdict is settled, and its figures are what it
	// measured by then.
	Watch func(Watch) bool

	// Mitigations (see mitigate.go); nil or zero: none.
	Detect detect.Config
	// Sink, when set, receives each window's per-shard series as the window closes, and
	// the Result keeps none of them (ShardBusy, ShardOps and ShardMaxQueue stay nil; the
	// shard totals and every node series are kept as without it). The engine then holds
	// only the windows still open, so the memory of the shard series no longer grows with
	// the windows. It cannot be combined with a Setting that adds shards to the table
	// (ShardGrower: the number of shards would change during the run).
	Sink WindowSink
	// Detail, when its Window is set, keeps every stream's latency histograms at a finer
	// grain over a range of the run as well (detail.go).
	Detail Detail
	// Mechanisms are the settings of the mechanisms that each own their whole part of the
	// run (a page latch, a connection pool: component.go's Setting), turned on in order.
	Mechanisms []Setting

	// ran marks a model that Run has used: its generators, planners and splitter hold the
	// state that run left, so a second run would not repeat the first.
	ran bool
}

// DefaultMaxQueued is the backlog at which a run is declared saturated: about 140 MB of
// waiting subrequests and their requests.
const DefaultMaxQueued = 2_000_000

// Windows returns the number of time-series windows: ceil(Duration / Window).
func (m *Model) Windows() int {
	return int(m.Duration/m.Window + min(m.Duration%m.Window, 1))
}
