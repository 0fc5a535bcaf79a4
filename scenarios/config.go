package scenarios

// The types below mirror the scenario file (SPEC section 2). They hold what the user wrote:
// durations and clock times stay strings and optional numbers are pointers (nil: absent),
// so that validation can tell "missing" from "zero" and report the text it could not read.

// File is one scenario file, before variants are applied.
type File struct {
	Name        string `toml:"name"`
	Description string `toml:"description"`
	Seed        *int64 `toml:"seed"`
	Start       string `toml:"start"`
	Duration    string `toml:"duration"`
	Warmup      string `toml:"warmup"`
	Window      string `toml:"window"`
	// LoadFactor multiplies every stream's rate (default 1): capacity searches vary it.
	LoadFactor *float64 `toml:"load_factor"`
	Cluster    Cluster  `toml:"cluster"`
	Table      Table    `toml:"table"`
	Keyspace   Keyspace `toml:"keyspace"`
	Streams    []Stream `toml:"streams"`
}

// A [[variants]] entry is decoded as a File of its own (its name and description are the
// variant's), then merged over the base at the TOML level: tables merge key by key, any
// other value replaces the base's.

// Cluster is the [cluster] table.
type Cluster struct {
	Nodes      *int         `toml:"nodes"`
	Cores      *int         `toml:"cores"`
	QueueLimit *int         `toml:"queue_limit"`
	Network    string       `toml:"network"`
	Placement  string       `toml:"placement"`
	ShardNodes []int        `toml:"shard_nodes"`
	Node       []NodeConfig `toml:"node"`
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
	History string           `toml:"history"`
	Fields  map[string]Field `toml:"fields"`
}

// Field is one field generator (SPEC 2.1).
type Field struct {
	Gen         string    `toml:"gen"`
	N           *int64    `toml:"n"`
	S           *float64  `toml:"s"`
	Scramble    *bool     `toml:"scramble"`
	HotFraction *float64  `toml:"hot_fraction"`
	HotOps      *float64  `toml:"hot_ops"`
	Values      []any     `toml:"values"`
	Count       *int      `toml:"count"`
	Weights     []float64 `toml:"weights"`
}

// Keyspace is the [keyspace] table.
type Keyspace struct {
	Scheme    string     `toml:"scheme"`
	Shards    *int       `toml:"shards"`
	Key       []string   `toml:"key"`
	Salt      *int       `toml:"salt"`
	SaltMode  string     `toml:"salt_mode"`
	SaltField string     `toml:"salt_field"`
	Hash      string     `toml:"hash"`
	Vnodes    *int       `toml:"vnodes"`
	Splits    string     `toml:"splits"`
	Directory []DirEntry `toml:"directory"`
}

// DirEntry is one [[keyspace.directory]] entry: the rows whose field equals value live on
// the listed shards.
type DirEntry struct {
	Field  string `toml:"field"`
	Value  any    `toml:"value"`
	Shards []int  `toml:"shards"`
}

// Stream is one [[streams]] entry.
type Stream struct {
	Name     string            `toml:"name"`
	Op       string            `toml:"op"`
	Rate     *float64          `toml:"rate"`
	Schedule []SchedulePoint   `toml:"schedule"`
	Arrival  string            `toml:"arrival"`
	Cost     string            `toml:"cost"`
	Service  string            `toml:"service"`
	CV       *float64          `toml:"cv"`
	Age      any               `toml:"age"`
	Where    map[string]string `toml:"where"`
	Fields   map[string]Field  `toml:"fields"`
	// SLO is the stream's p99 latency thresholds: a latency alert fires the first time a
	// window's p99 crosses each; the first is drawn on the p99 chart. A single duration
	// or a list; default ["200ms", "500ms", "1.5s"].
	SLO any `toml:"slo"`
	// Burst multiplies the rate by burst.factor during the first burst.width of every
	// burst.every (nil: no bursts).
	Burst *Burst `toml:"burst"`
}

// Burst is a stream's burst = { every = "1m", width = "2s", factor = 10, offset = "0s" }:
// the rate is multiplied by factor inside [offset + k·every, offset + k·every + width).
type Burst struct {
	Every  string   `toml:"every"`
	Width  string   `toml:"width"`
	Factor *float64 `toml:"factor"`
	Offset string   `toml:"offset"`
}

// SchedulePoint is one point of a piecewise-linear rate schedule.
type SchedulePoint struct {
	At   string   `toml:"at"`
	Rate *float64 `toml:"rate"`
}
