package scenario

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/detect"
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
	maxSalt           = 65_536
	maxLoadFactor     = 1_000_000
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
			panic("scenario: bad default duration " + s)
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

// rowRate reads a required rate of rows per second, above 0 and at most 1e9; 0 when it
// is missing or bad.
func (c *checker) rowRate(key, what string, r *float64) float64 {
	switch {
	case r == nil:
		c.add(key, "required: the rows per second %s", what)
	case !(*r > 0) || *r > 1e9:
		c.add(key, "must be a number of rows per second above 0 and at most 1e9 (got %v)", *r)
	default:
		return *r
	}
	return 0
}

// maxCPU reads an optional cap on a node's CPU, a fraction of its cores above 0 and at
// most 1; 0 (no cap) when it is absent or bad.
func (c *checker) maxCPU(key string, x *float64) float64 {
	if x == nil {
		return 0
	}
	if !(*x > 0 && *x <= 1) {
		c.add(key, "must be a fraction of a node's cores above 0 and at most 1 (got %v)", *x)
		return 0
	}
	return *x
}

// instant reads a required instant: a clock time or a duration since the start; -1 when
// it is missing or bad.
func (c *checker) instant(key string, i Instant, start sim.Time) sim.Time {
	if !i.Set() {
		c.add(key, "required: a clock time such as \"08:00\" or a duration since the start such as \"2h\"")
		return -1
	}
	t, err := i.At(start)
	if err != nil {
		c.add(key, "%v", err)
		return -1
	}
	return t
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
	// would issue if nothing queued, clients / (think + cost + lock + 2 x network), for the
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
	// Index, when positive, routes the stream over Resolved.Indexes[Index-1]
	// (mechanisms/index).
	Index int
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
	// Scenario is the scenario-wide part, the same in every variant (no variant sets it,
	// docs/scenario.md): its name, clock and the story's claims (claims.go), their variants
	// not yet named in full (the loader of the scenario links them).
	Scenario
	Network sim.Time
	Nodes   []sim.Node
	Shards  int
	// Placement is how shards are placed on nodes, and ShardNodes the node of each shard
	// when it is explicit (compile.Placement places them).
	Placement  Placement
	ShardNodes []int
	Scheme     keyspace.SchemeKind

	// SchemeOptions are the scheme's own options, of its own type (keyspace/NAME.go).
	SchemeOptions keyspace.SchemeOptions

	Key        []string
	Parts      []keyspace.Part
	Salt       int
	SaltMode   keyspace.SaltMode
	SaltField  int
	FieldNames []string // sorted; field i of every request
	Fields     []FieldSpec
	Streams    []StreamSpec
	History    sim.Time
	TableName  string
	// Detail is the range kept at a finer grain (Window 0: none), see detail.go.
	Detail     sim.Detail
	LoadFactor float64 // multiplies every stream's rate

	// Mitigations and detection (mitigate.go); zero or nil: none.
	Replicas    int
	ReadAny     bool
	ApplyCost   sim.Time // 0: each write stream's own cost
	Limits      *PartitionLimits
	Split       *SplitPolicy // nil: no splitting
	MaxShards   int          // the shards the variant may reach: shards without splitting
	Copies      *CopiesSpec
	Actions     []ActionSpec // in time order
	Detect      detect.Config
	DetectGiven bool // [detect] was given
	// Migration is the [[actions]] entry's migrate (nil: none); its Target is filled by
	// the loader of the scenario, which knows the other variants.
	Migration *MigrationSpec
	// Rebalance is the [[actions]] entry's add_nodes (nil: none).
	Rebalance *RebalanceSpec
	// Mechanisms are the settings of the mechanisms that declare their own keys
	// (mechanism.go), in the order their resolvers registered.
	Mechanisms []sim.Setting
	// Indexes are the table's global secondary indexes (mechanisms/index; nil: none).
	Indexes []IndexSpec
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
	resolveRun(c, f, s)
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
	resolveAll(clusterResolvers, c, f, s) // the followers (mechanisms/replicas), which others read
	resolveTable(c, f, s)
	resolveKeyspace(c, f, s)
	s.MaxShards = s.Shards             // unless shards split
	resolveKeyspaceMechanisms(c, f, s) // partition limits and splits (mechanisms/limits, split), which others read
	resolveCopies(c, f, s)
	resolvePlacement(c, f, s)
	resolveStreams(c, f, s)
	resolveAll(routingResolvers, c, f, s) // indexes (mechanisms/index), over which the queries of the streams they route are planned
	resolveQueries(c, s)
	resolveActions(c, f, s)
	resolveDetect(c, f, s)
	resolveMechanisms(c, f, s)
	resolveClaims(c, f, s)
	resolveAll(lateChecks, c, f, s)
	return s, c.probs
}

// resolveRun reads the run's name, description, seed and clock: its start, duration,
// warm-up and window.
func resolveRun(c *checker, f *File, s *Resolved) {
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

// resolveField reads a field's generator and its parameters.
func resolveField(c *checker, key string, f Field) FieldSpec {
	fs := FieldSpec{Gen: f.Gen, DeclaredHere: true}
	if f.Gen == "" {
		c.add(key+".gen", "required: one of %s", strings.Join(quoteAll(enumNames(Gens)), ", "))
		return fs
	}
	for _, p := range []struct {
		name  string
		given bool
		gens  []Gen // the generators that take it
	}{
		{"n", f.N != nil, []Gen{GenUniform, GenZipf, GenHotspot}},
		{"s", f.S != nil, []Gen{GenZipf}},
		{"scramble", f.Scramble != nil, []Gen{GenZipf}},
		{"hot_fraction", f.HotFraction != nil, []Gen{GenHotspot}},
		{"hot_ops", f.HotOps != nil, []Gen{GenHotspot}},
		{"values", f.Values != nil, []Gen{GenCategorical}},
		{"count", f.Count != nil, []Gen{GenCategorical}},
		{"weights", f.Weights != nil, []Gen{GenCategorical}},
	} {
		if p.given && !slices.Contains(p.gens, f.Gen) {
			c.add(key+"."+p.name, "does not apply to gen = %q", f.Gen)
		}
	}
	switch f.Gen {
	case GenUniform, GenZipf, GenHotspot:
		fieldN(c, key, f, &fs)
	}
	switch f.Gen {
	case GenZipf:
		fs.S = defaultZipfS
		if f.S != nil {
			if *f.S < 0 || math.IsNaN(*f.S) || math.IsInf(*f.S, 0) {
				c.add(key+".s", "must be a number >= 0 (got %v)", *f.S)
			} else {
				fs.S = *f.S
			}
		}
		fs.Scramble = f.Scramble == nil || *f.Scramble
	case GenHotspot:
		fs.HotFraction = fraction(c, key+".hot_fraction", f.HotFraction, defaultHotFrac, false)
		fs.HotOps = fraction(c, key+".hot_ops", f.HotOps, defaultHotOps, true)
	case GenCategorical:
		resolveCategorical(c, key, f, &fs)
	case GenSnowflake, GenSequence, GenTime, GenUUIDv7, GenULID, GenKSUID:
		fs.TimeOrdered = true
	}
	return fs
}

// fieldN reads the number of distinct ids of a uniform, zipf or hotspot field.
func fieldN(c *checker, key string, f Field, fs *FieldSpec) {
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

// fraction reads an optional fraction: between 0 and 1, exclusive unless closed; def
// when it is absent or bad.
func fraction(c *checker, key string, p *float64, def float64, closed bool) float64 {
	switch {
	case p == nil:
		return def
	case closed && !(*p >= 0 && *p <= 1):
		c.add(key, "must be between 0 and 1 (got %v)", *p)
	case !closed && !(*p > 0 && *p < 1):
		c.add(key, "must be between 0 and 1, exclusive (got %v)", *p)
	default:
		return *p
	}
	return def
}

// enumNames returns an enum's values as strings.
func enumNames[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
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
		fs.Weights = categoricalWeights(c, key, f.Weights, fs.Count)
	}
}

// categoricalWeights checks a categorical field's weights: one a value, none negative,
// not all zero; nil when they are bad.
func categoricalWeights(c *checker, key string, weights []float64, count int) []float64 {
	if len(weights) != count {
		c.add(key+".weights", "has %d entries for %d values", len(weights), count)
		return nil
	}
	sum := 0.0
	for i, w := range weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			c.add(fmt.Sprintf("%s.weights[%d]", key, i), "must be a number >= 0 (got %v)", w)
			return nil
		}
		sum += w
	}
	if math.IsInf(sum, 0) {
		c.add(key+".weights", "sum to more than a float64 holds; scale them down")
		return nil
	}
	if sum <= 0 {
		c.add(key+".weights", "must not all be zero")
		return nil
	}
	return weights
}

func (s *Resolved) fieldIndex(name string) int {
	i, ok := slices.BinarySearch(s.FieldNames, name)
	if !ok {
		return -1
	}
	return i
}

var bucketFns = map[string]sim.Time{"minute": sim.Minute, "hour": sim.Hour, "day": 24 * sim.Hour}

// resolveKeyspace reads [keyspace]: the scheme and its shards, the salt and the key's
// parts, after the table.
func resolveKeyspace(c *checker, f *File, s *Resolved) {
	k := &f.Keyspace
	resolveScheme(c, f, s)
	resolveSalt(c, k, s)
	if len(k.Key) == 0 {
		c.add("keyspace.key", "required: the partition key's parts, e.g. [\"order_id\"]")
	}
	maxParts := keyspace.MaxParts
	if keyspace.Salted(s.Salt) {
		maxParts--
	}
	if len(k.Key) > maxParts {
		c.add("keyspace.key", "at most %d parts are allowed (got %d)", maxParts, len(k.Key))
		return
	}
	s.Key = k.Key
	for i, text := range k.Key {
		if part, ok := resolveKeyPart(c, fmt.Sprintf("keyspace.key[%d]", i), text, s); ok {
			s.Parts = append(s.Parts, part)
		}
	}
	resolveSchemeOptions(c, f, s, keyspace.PhaseKey)
}

// resolveScheme reads the shard scheme, the shards and the options the schemes read beside
// them. Options of another scheme are ignored rather than refused, so that a variant can
// switch scheme without unsetting what the base scenario set.
func resolveScheme(c *checker, f *File, s *Resolved) {
	k := &f.Keyspace
	s.Scheme, _ = keyspace.ParseScheme(oneOf(c, "keyspace.scheme", string(k.Scheme), string(keyspace.DefaultScheme), keyspace.SchemeNames()...))
	if n := s.Scheme.Shards(schemeInput{c, k.Ext}); k.Shards == nil && n > 0 {
		s.Shards = n // the scheme's keys give them
	} else {
		s.Shards = c.requiredCount("keyspace.shards", "shards", k.Shards, maxShards)
	}
	resolveSchemeOptions(c, f, s, keyspace.PhaseAlways)
	if k.Splits != "" && k.Splits != "history" {
		c.add("keyspace.splits", "must be \"history\" (got %q)", k.Splits)
	}
	resolveSchemeOptions(c, f, s, keyspace.PhaseShards)
}

// resolveSalt reads the salt's buckets, how a write picks one, and the field a hash salt
// is derived from.
func resolveSalt(c *checker, k *Keyspace, s *Resolved) {
	salt := c.intAtLeast("keyspace.salt", k.Salt, 0, 0)
	if salt > maxSalt {
		c.add("keyspace.salt", "must be at most %d buckets (got %d): a read of a salted key visits every bucket", maxSalt, salt)
		salt = 0
	}
	s.Salt = salt
	s.SaltMode, _ = keyspace.ParseSaltMode(oneOf(c, "keyspace.salt_mode", string(k.SaltMode), keyspace.SaltRandom.String(), keyspace.SaltModeNames()...))
	s.SaltField = -1
	if k.SaltField != "" {
		if s.SaltField = s.fieldIndex(k.SaltField); s.SaltField < 0 {
			c.add("keyspace.salt_field", "no such field %q in table.fields", k.SaltField)
		}
	} else if s.SaltMode == keyspace.SaltHash && keyspace.Salted(salt) {
		c.add("keyspace.salt_field", "required with salt_mode = \"hash\" (the field the salt is derived from)")
	}
}

// resolveKeyPart reads one part of the key as written: a field, a time bucket of a
// time-ordered field, or hash(field, N).
func resolveKeyPart(c *checker, key, text string, s *Resolved) (keyspace.Part, bool) {
	kp, err := parseKeyPart(text)
	if err != nil {
		c.add(key, "%v", err)
		return keyspace.Part{}, false
	}
	fi := s.fieldIndex(kp.Field)
	if fi < 0 {
		c.addErr(key, &NoSuchFieldError{Field: kp.Field, Have: s.FieldNames})
		return keyspace.Part{}, false
	}
	part := keyspace.Part{Field: fi, Name: text}
	switch kp.Fn {
	case "":
		part.Kind = keyspace.FieldPart
	case "minute", "hour", "day", "bucket":
		if !s.Fields[fi].TimeOrdered {
			c.add(key, "%s() needs a time-ordered field (gen = \"time\", \"snowflake\", \"sequence\", \"uuidv7\", \"ulid\" or \"ksuid\"); %q is gen = %q", kp.Fn, kp.Field, s.Fields[fi].Gen)
			return part, false
		}
		part.Kind = keyspace.TimeBucketPart
		part.Width = int64(bucketFns[kp.Fn])
		if kp.Fn == "bucket" {
			w, err := units.ParseDuration(kp.Arg)
			if err != nil || w <= 0 {
				c.add(key, "bucket width %q must be a positive duration", kp.Arg)
				return part, false
			}
			part.Width = int64(w)
		}
	case "hash":
		var n uint64
		if _, err := fmt.Sscanf(kp.Arg, "%d", &n); err != nil || n < 1 || fmt.Sprint(n) != kp.Arg {
			c.add(key, "hash modulus %q must be a whole number >= 1", kp.Arg)
			return part, false
		}
		part.Kind, part.Mod = keyspace.HashPart, n
	}
	return part, true
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

// resolvePlacement checks how shards are placed on nodes; compile.Placement places them.
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

// resolveStreams reads [[streams]], after the table and the keyspace.
func resolveStreams(c *checker, f *File, s *Resolved) {
	if len(f.Streams) == 0 {
		c.add("streams", "required: at least one [[streams]] entry")
	}
	names := map[string]bool{}
	for i, st := range f.Streams {
		key := fmt.Sprintf("streams[%d]", i)
		ss := StreamSpec{Name: st.Name}
		streamName(c, key, st.Name, names)
		if st.Trace != nil {
			// A replayed stream: its ops and arrivals come from the log (trace.go).
			st.Op, st.Rate = OpWrite, new(float64)
		}
		ss.Op = streamOp(c, key, st.Op)
		if st.Clients == nil {
			resolveRate(c, key, st, s, &ss)
		}
		ss.Uniform = oneOf(c, key+".arrival", string(st.Arrival), "poisson", "poisson", "uniform") == "uniform"
		ss.Burst = resolveBurst(c, s, key+".burst", st.Burst)
		resolveService(c, key, st, &ss)
		ss.SLO = resolveSLO(c, key+".slo", st.SLO)
		ss.Client = resolveClient(c, key, st)
		ss.RetryLabel = resolveRetryLabel(c, key+".retry_label", st.RetryLabel, ss.Client.Retries)
		resolveRows(c, key, st, &ss)
		ss.Age = resolveAge(c, key+".age", st.Age)
		if st.Age.Dist != "" && ss.Op == sim.Write {
			c.add(key+".age", "applies only to reads and scans (a write's row time is now)")
		}
		resolveWhere(c, key, st, s, &ss)
		resolveStreamFields(c, key, st, s, &ss)
		resolveStreamMechanisms(c, key, &st, &ss) // row locks (mechanisms/locks), which the clients' cycle reads
		if f.Streams[i].Trace != nil {
			traceOnly(c, key, st)
			s.Streams = append(s.Streams, resolveTrace(c, key, f, f.Streams[i], s, ss)...)
			continue
		}
		resolveClients(c, key, st, s, &ss)
		s.Streams = append(s.Streams, ss)
	}
}

// streamName checks a stream's name: it names chart files and report rows.
func streamName(c *checker, key, name string, names map[string]bool) {
	switch {
	case name == "":
		c.add(key+".name", "required")
	case !streamNameRE.MatchString(name):
		c.add(key+".name", "must be letters, digits, '_', '-' or '.' (got %q)", name)
	case len(name) > maxNameLength:
		c.add(key+".name", "must be at most %d characters: it names chart files (got %d)", maxNameLength, len(name))
	case names[name]:
		c.add(key+".name", "duplicate stream name %q", name)
	}
	names[name] = true
}

// streamOps maps a stream's op to the engine's.
var streamOps = map[Op]sim.Op{OpWrite: sim.Write, OpRead: sim.Read, OpScan: sim.Scan}

// streamOp reads a stream's operation.
func streamOp(c *checker, key string, op Op) sim.Op {
	o, ok := streamOps[op]
	switch {
	case op == "":
		c.add(key+".op", "required: \"write\", \"read\" or \"scan\"")
	case !ok:
		c.add(key+".op", "must be one of \"write\", \"read\", \"scan\" (got %q)", op)
	}
	return o
}

// resolveService reads a request's CPU time: its mean (cost) and its distribution.
func resolveService(c *checker, key string, st Stream, ss *StreamSpec) {
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
	if st.CV == nil {
		return
	}
	if ss.Service.Kind != sim.Lognormal {
		c.add(key+".cv", "applies only to service = \"lognormal\"")
	} else if !(*st.CV > 0) || math.IsInf(*st.CV, 0) {
		c.add(key+".cv", "must be a positive number (got %v)", *st.CV)
	} else {
		ss.Service.CV = *st.CV
	}
}

// resolveWhere reads a scan's where clause: an equality or the last span of a time field
// for each constrained field.
func resolveWhere(c *checker, key string, st Stream, s *Resolved, ss *StreamSpec) {
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
}

// resolveStreamFields applies a stream's own field generators over the table's.
func resolveStreamFields(c *checker, key string, st Stream, s *Resolved, ss *StreamSpec) {
	ss.Fields = slices.Clone(s.Fields)
	for _, name := range sortedKeys(st.Fields) {
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
}

// traceOnly refuses the settings a replayed log decides: arrivals and operations come from
// the log; closed-loop clients are not modelled on a replay yet (nor row locks, which
// mechanisms/locks refuses).
func traceOnly(c *checker, key string, st Stream) {
	for _, k := range []struct {
		name string
		set  bool
	}{{"clients", st.Clients != nil}, {"think", st.Think.Set()}} {
		if k.set {
			c.add(key+"."+k.name, "a trace stream replays its log as it is: remove %s", k.name)
		}
	}
}

// resolveRate reads a stream's rate: a constant rate or a schedule, times load_factor.
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
		resolveSchedule(c, key, st.Schedule, s, ss)
	default:
		c.add(key+".rate", "required: rate = N (requests per second) or schedule = [ { at, rate }, ... ]")
	}
}

// resolveSchedule reads a schedule's points, in increasing time order from the start of
// the run (schedule.go: a run that starts inside its schedule).
func resolveSchedule(c *checker, key string, pts []SchedulePoint, s *Resolved, ss *StreamSpec) {
	prev := sim.Time(math.MinInt64)
	reading := readSchedule(pts, s.Start)
	for j, p := range pts {
		pk := fmt.Sprintf("%s.schedule[%d]", key, j)
		at, ok := schedulePointAt(c, pk, p, s.Start, reading, j)
		if !ok {
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
	if reading.at != nil && len(ss.Schedule) == len(pts) {
		ss.Schedule = fromStart(ss.Schedule)
	}
}

// schedulePointAt reads the time of point j of a schedule; false when it is missing or
// bad.
func schedulePointAt(c *checker, pk string, p SchedulePoint, start sim.Time, reading scheduleReading, j int) (sim.Time, bool) {
	if !p.At.Set() {
		c.add(pk+".at", "required: a clock time such as \"08:00\" or a duration since the start such as \"2h\"")
		return 0, false
	}
	at, err := p.At.At(start)
	if err != nil {
		c.add(pk+".at", "%v", err)
		return 0, false
	}
	if reading.at != nil {
		return reading.at[j], true
	}
	if at < 0 {
		c.add(pk+".at", "must not be before the start of the run (got %q)", p.At)
		return 0, false
	}
	return at, true
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
		if ss.Op != sim.Scan || len(ss.Where) == 0 || len(s.Parts) == 0 || ss.Index > 0 {
			continue
		}
		key := fmt.Sprintf("streams[%d].where", i)
		q := saltQuery(s, ss)
		timeParts := 0
		for _, p := range s.Parts {
			pq := partQuery(p, ss, s.FieldNames[p.Field])
			if pq.Mode == keyspace.TimeRange {
				timeParts++
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

// saltQuery is how a scan visits the salt's buckets: the one a hash salt of a field the
// scan knows derives, or every bucket; nil without a salt.
func saltQuery(s *Resolved, ss *StreamSpec) []keyspace.PartQuery {
	if !keyspace.Salted(s.Salt) {
		return nil
	}
	if s.SaltMode == keyspace.SaltHash && s.SaltField >= 0 && ss.Where[s.FieldNames[s.SaltField]].Eq {
		return []keyspace.PartQuery{{Mode: keyspace.Known}}
	}
	return []keyspace.PartQuery{{Mode: keyspace.Enumerate, Count: uint64(s.Salt)}}
}

// partQuery is how a scan's where clause constrains key part p of field name: known, a
// range of time buckets or of raw time, enumerated (a hash part, a field of few values) or
// scattered.
func partQuery(p keyspace.Part, ss *StreamSpec, name string) keyspace.PartQuery {
	w, constrained := ss.Where[name]
	f := ss.Fields[p.Field]
	switch {
	case constrained && w.Eq:
		return keyspace.PartQuery{Mode: keyspace.Known}
	case p.Kind == keyspace.HashPart:
		return keyspace.PartQuery{Mode: keyspace.Enumerate, Count: p.Mod}
	case p.Kind == keyspace.TimeBucketPart && constrained:
		return keyspace.PartQuery{Mode: keyspace.BucketRange, Span: int64(w.Span), Width: p.Width}
	case p.Kind == keyspace.FieldPart && constrained: // a duration on a raw time-ordered field
		return keyspace.PartQuery{Mode: keyspace.TimeRange, Span: int64(w.Span)}
	case p.Kind == keyspace.FieldPart && f.Cardinality > 0 && f.Cardinality <= enumerableLimit:
		return keyspace.PartQuery{Mode: keyspace.Enumerate, Count: f.Cardinality}
	}
	return keyspace.PartQuery{Mode: keyspace.Scatter}
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
// (metrics.ShardDigest). A variant whose mechanisms change its shards during the run keeps
// them (RegisterWindowsHeld: automatic splits). Tests lower it to stream small runs.
var StreamShardCells int64 = 2_000_000

// Streamed reports whether `run` streams this variant's shard series (StreamShardCells).
func (s *Resolved) Streamed() bool {
	if s.Window <= 0 || s.Duration <= 0 || s.holdsWindows() {
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
	return windows * int64(s.Shards+s.OtherShards())
}

// ParquetShardCells is the size in shard-windows of a variant above which `run --series
// auto` (the default) writes the per-window series as Parquet instead of CSV: about 100 MB
// of shards.csv (docs/outputs.md).
const ParquetShardCells = 2_000_000

// Effective returns a copy of s without the settings that change nothing in its model:
// salt options without salt buckets, and what each mechanism clears of its own
// (RegisterEffective: follower options without followers). (A scheme's
// options hold its own settings only, those that change its placement: no ring options
// under another scheme or under modulo hashing, no directory entries under another
// scheme.)
// Two variants with equal Effective forms run the same model.
func (s *Resolved) Effective() Resolved {
	e := *s
	if !keyspace.Salted(e.Salt) {
		e.Salt, e.SaltMode = 0, 0
	}
	if !keyspace.Salted(e.Salt) || e.SaltMode != keyspace.SaltHash {
		e.SaltField = -1
	}
	for _, clear := range effectives {
		clear(&e)
	}
	return e
}
