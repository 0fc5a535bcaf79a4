package scenario

import (
	"io/fs"

	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/units"
)

// The types below mirror the scenario file (docs/scenario.md) as plain data. Durations, clock
// times, instants, enumerations and the few values of several shapes have types that
// decode themselves (types.go), so that a File holds no untyped value; optional numbers
// are pointers (nil: absent), so that validation can tell "missing" from "zero".
//
// A mechanism declares its own keys beside its checks (mechanism.go): they decode into the
// Ext field of the table that holds them.

// File is one scenario file, before variants are applied.
type File struct {
	Name        string   `toml:"name"`
	Description string   `toml:"description"`
	Seed        *int64   `toml:"seed"`
	Start       Clock    `toml:"start"`
	Duration    Duration `toml:"duration"`
	Warmup      Duration `toml:"warmup"`
	Window      Duration `toml:"window"`
	// LoadFactor multiplies every stream's rate (default 1): capacity searches vary it.
	LoadFactor *float64 `toml:"load_factor"`
	Cluster    Cluster  `toml:"cluster"`
	Table      Table    `toml:"table"`
	Keyspace   Keyspace `toml:"keyspace"`
	Streams    []Stream `toml:"streams"`
	// Actions are timed operator actions, applied in time order.
	Actions []Action `toml:"actions"`
	// Detect tunes hot-key detection and per-key latency outliers (nil: defaults).
	Detect *Detect `toml:"detect"`
	// TraceFS is where streams' trace paths are found: the scenario file's directory
	// (nil: the logs are not opened, and only their keys are checked).
	TraceFS fs.FS `toml:"-"`
	// Detail keeps latencies at a finer grain over a range of the run (nil: none).
	Detail *Detail `toml:"detail"`
	// Shortened, set by the loader when --duration replaces the file's duration, cuts a
	// detail range at the new end (detail.go), and leaves a claim about a time after it
	// unmeasured (claims.go), instead of refusing them.
	Shortened bool `toml:"-"`
	// Moved, set by the loader when the command line replaces the file's start (--set
	// start), reads a clock time that the new start has passed as that time on the start's
	// day, before the run, instead of the next day's: a detail range is cut at the new start
	// (or kept nowhere), and a claim about such a time is left unmeasured (detail.go,
	// claims.go), where they would be refused as past the end.
	Moved bool `toml:"-"`
	// Claims are what a story about the scenario says, each with a figure the run can
	// measure (claims.go); the reports set them beside the measured figures.
	Claims []Claim `toml:"claims"`
	// Ext holds the keys mechanisms declare in this table (mechanism.go).
	Ext tomlx.Extensions `toml:"-"`
}

// Detail is the detail table: { from = "08:00", to = "08:35", window = "5s" }.
type Detail struct {
	From   Instant  `toml:"from"`
	To     Instant  `toml:"to"`
	Window Duration `toml:"window"`
}

// A [[variants]] entry is decoded as a File of its own (its name and description are the
// variant's), then merged over the base at the TOML level: tables merge key by key, any
// other value replaces the base's.

// Cluster is the [cluster] table.
type Cluster struct {
	Nodes      *int         `toml:"nodes"`
	Cores      *int         `toml:"cores"`
	QueueLimit *int         `toml:"queue_limit"`
	Network    Duration     `toml:"network"`
	Placement  Placement    `toml:"placement"`
	ShardNodes []int        `toml:"shard_nodes"`
	Node       []NodeConfig `toml:"node"`
	// Ext holds the keys mechanisms declare in this table (mechanism.go): the followers'
	// replicas, read_from and apply_cost (mechanisms/replicas), the event loop's and the
	// commit flush's.
	Ext tomlx.Extensions `toml:"-"`
}

// NodeConfig overrides one node ([[cluster.node]]).
type NodeConfig struct {
	ID         *int `toml:"id"`
	Cores      *int `toml:"cores"`
	QueueLimit *int `toml:"queue_limit"`
}

// Table is the [table] table.
type Table struct {
	Name    string           `toml:"name"`
	History Duration         `toml:"history"`
	Fields  map[string]Field `toml:"fields"`
	// Ext holds the keys mechanisms declare in this table (mechanism.go).
	Ext tomlx.Extensions `toml:"-"`
}

// Field is one field generator (docs/scenario.md, [table]).
type Field struct {
	Gen         Gen       `toml:"gen"`
	N           *int64    `toml:"n"`
	S           *float64  `toml:"s"`
	Scramble    *bool     `toml:"scramble"`
	HotFraction *float64  `toml:"hot_fraction"`
	HotOps      *float64  `toml:"hot_ops"`
	Values      []Scalar  `toml:"values"`
	Count       *int      `toml:"count"`
	Weights     []float64 `toml:"weights"`
}

// Keyspace is the [keyspace] table.
type Keyspace struct {
	Scheme    Scheme   `toml:"scheme"`
	Shards    *int     `toml:"shards"`
	Key       []string `toml:"key"`
	Salt      *int     `toml:"salt"`
	SaltMode  SaltMode `toml:"salt_mode"`
	SaltField string   `toml:"salt_field"`
	Splits    Splits   `toml:"splits"`
	// Copies spreads hot keys over several copies (nil: none).
	Copies *Copies `toml:"copies"`
	// Ext holds the keys mechanisms declare in this table (mechanism.go), and the shard
	// schemes' own keys (scheme.go).
	Ext tomlx.Extensions `toml:"-"`
}

// Copies is [keyspace.copies]: the rows of a few hot values of one key field are written
// to count copies (an extra trailing key part), and each read picks one.
type Copies struct {
	Count *int     `toml:"count"`
	Keys  []Scalar `toml:"keys"`
	Top   *int     `toml:"top"`
	Field string   `toml:"field"`
}

// Stream is one [[streams]] entry.
type Stream struct {
	Name     string            `toml:"name"`
	Op       Op                `toml:"op"`
	Rate     *float64          `toml:"rate"`
	Schedule []SchedulePoint   `toml:"schedule"`
	Arrival  Arrival           `toml:"arrival"`
	Cost     Duration          `toml:"cost"`
	Service  Service           `toml:"service"`
	CV       *float64          `toml:"cv"`
	Age      Age               `toml:"age"`
	Where    map[string]string `toml:"where"`
	Fields   map[string]Field  `toml:"fields"`
	// SLO is the stream's p99 latency thresholds: a latency alert fires the first time a
	// window's p99 crosses each; the first is drawn on the p99 chart. A single duration
	// or a list; default ["200ms", "500ms", "1.5s"].
	SLO SLOList `toml:"slo"`
	// Burst multiplies the rate by burst.factor during the first burst.width of every
	// burst.every (nil: no bursts).
	Burst *Burst `toml:"burst"`
	// Timeout is how long the client waits for an attempt (default: for ever).
	Timeout Duration `toml:"timeout"`
	// Retries is how many more attempts follow a timed-out, rejected or throttled one.
	Retries *int `toml:"retries"`
	// Backoff and BackoffMax shape the exponential backoff between attempts.
	Backoff    Duration `toml:"backoff"`
	BackoffMax Duration `toml:"backoff_max"`
	// Limit is a client-side token bucket (nil: none), or on a scan a whole number: the
	// most rows one scan reads (Limit.Rows).
	Limit *Limit `toml:"limit"`
	// Trace replays an access log instead of generating requests (nil: none); see trace.go.
	Trace *Trace `toml:"trace"`
	// Clients, instead of rate or schedule, makes the stream closed-loop: that many
	// clients, each issuing its next request a think time after the answer to its last
	// (a bare duration is the mean of an exponential think time).
	Clients *int `toml:"clients"`
	Think   Dist `toml:"think"`
	// RowCost is the CPU time of each row a scan reads, on top of cost per partition.
	RowCost Duration `toml:"row_cost"`
	// RetryLabel is what a retry of this stream means, in the reader's words (say
	// "duplicate charge attempts"): the reports name the stream's retries by it.
	RetryLabel string `toml:"retry_label"`
	// Ext holds the keys mechanisms declare in this table (mechanism.go).
	Ext tomlx.Extensions `toml:"-"`
}

// Limit is a client rate limit: { rate, burst = 1, overflow = "reject" | "queue" }; or,
// written as a whole number on a scan, a row limit (Rows).
type Limit struct {
	Rate     *float64 `toml:"rate"`
	Burst    *int     `toml:"burst"`
	Overflow Overflow `toml:"overflow"`
	Rows     *int64   `toml:"-"`
}

// Action is one [[actions]] entry: at a time, one setting changes.
type Action struct {
	At   Instant `toml:"at"`
	Note string  `toml:"note"`
	// Ext holds the keys mechanisms declare in this table (mechanism.go), among them the
	// setting the action changes: the operator's node, cores, queue_limit, stream and
	// limit (mechanisms/operator), the cache's cache (mechanisms/cache), the migration's
	// migrate (mechanisms/migrate), the rebalance's add_nodes and rebalance
	// (mechanisms/rebalance).
	Ext tomlx.Extensions `toml:"-"`
}

// Detect is the [detect] table.
type Detect struct {
	TopK              *int     `toml:"top_k"`
	SampleEvery       *int     `toml:"sample_every"`
	MaxKeys           *int     `toml:"max_keys"`
	OutlierFactor     *float64 `toml:"outlier_factor"`
	OutlierMinSamples *int     `toml:"outlier_min_samples"`
}

// Burst is a stream's burst = { every = "1m", width = "2s", factor = 10, offset = "0s" }:
// the rate is multiplied by factor inside [offset + k·every, offset + k·every + width).
type Burst struct {
	Every  Duration `toml:"every"`
	Width  Duration `toml:"width"`
	Factor *float64 `toml:"factor"`
	Offset Duration `toml:"offset"`
}

// SchedulePoint is one point of a piecewise-linear rate schedule.
type SchedulePoint struct {
	At   Instant  `toml:"at"`
	Rate *float64 `toml:"rate"`
}

// Defaults returns a File holding the default of every optional key whose default does not
// depend on other keys (docs/scenario.md lists them all). The loader decodes a scenario
// over it, so a File read from disk states these values; Resolve applies the same
// defaults to a File built in code that leaves them out.
func Defaults() File {
	seed, lf := int64(defaultSeed), 1.0
	cores, queue, salt := defaultCores, 0, 0
	start, err := units.ParseClock(defaultStart)
	if err != nil {
		panic("scenario: bad default start")
	}
	return File{
		Seed:       &seed,
		Start:      Clock{Text: defaultStart, Value: start},
		Warmup:     Dur("0s"),
		Window:     Dur(defaultWindow),
		LoadFactor: &lf,
		Cluster: Cluster{
			Cores: &cores, QueueLimit: &queue, Network: Dur("0s"),
		},
		Table: Table{History: Dur(defaultHistory)},
		Keyspace: Keyspace{
			Scheme: Scheme(keyspace.DefaultScheme), Salt: &salt, SaltMode: SaltMode(keyspace.SaltRandom.String()), Splits: SplitsHistory,
		},
	}
}
