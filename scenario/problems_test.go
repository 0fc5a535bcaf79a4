package scenario

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
)

func ptr[T any](v T) *T { return &v }

// problemCases are scenarios that are the minimal one with one thing wrong, each with the
// problem Resolve must report: the dotted key a user finds it at and the message, as
// written (docs/scenario.md states the rules).
var problemCases = []struct {
	name   string
	mutate func(f *File)
	want   []string // "KEY: MESSAGE", every problem in order
}{
	// The run.
	{"no name", func(f *File) { f.Name = "" }, []string{"name: required (lower-case letters, digits and dashes)"}},
	{"name with capitals", func(f *File) { f.Name = "Orders" }, []string{"name: must be lower-case letters, digits and dashes (got \"Orders\")"}},
	{"name too long", func(f *File) { f.Name = strings.Repeat("a", 65) }, []string{"name: must be at most 64 characters: it names the output directory (got 65)"}},
	{"description with escape", func(f *File) { f.Description = "a\x1b[31m" }, []string{"description: must not hold control characters (found \"\\x1b\" at byte 1)"}},
	{"negative seed", func(f *File) { f.Seed = ptr(int64(-1)) }, []string{"seed: must not be negative (got -1)"}},
	{"warm-up past the run", func(f *File) { f.Warmup = Dur("10s") }, []string{"warmup: must be shorter than duration 10s (got \"10s\")"}},
	{"too many windows", func(f *File) { f.Duration, f.Window = Dur("1d"), Dur("1s") }, []string{"window: gives 86400 windows over duration 1d; at most 20000 are allowed (use a wider window)"}},
	{"load factor zero", func(f *File) { f.LoadFactor = ptr(0.0) }, []string{"load_factor: must be a number above 0 and at most 1000000 (got 0)"}},
	// The cluster.
	{"no nodes", func(f *File) { f.Cluster.Nodes = nil }, []string{"cluster.nodes: required (the number of nodes, at least 1)"}},
	{"network of a day", func(f *File) { f.Cluster.Network = Dur("2h") }, []string{"cluster.network: must be at most 1h, a one-way delay (got \"2h\")"}},
	{"node override without id", func(f *File) { f.Cluster.Node = []NodeConfig{{}} }, []string{"cluster.node[0].id: required (the node's index, 0 to nodes-1)"}},
	{"node override of no node", func(f *File) { f.Cluster.Node = []NodeConfig{{ID: ptr(5)}} }, []string{"cluster.node[0].id: no such node: ids run from 0 to 1 (got 5)"}},
	{"node overridden twice", func(f *File) { f.Cluster.Node = []NodeConfig{{ID: ptr(1)}, {ID: ptr(1)}} }, []string{"cluster.node[1].id: node 1 is overridden twice"}},
	{"shard nodes too few", func(f *File) { f.Cluster.ShardNodes = []int{0} }, []string{"cluster.shard_nodes: must list the node of each of the 4 shards (got 1 entries)"}},
	{"shard node of no node", func(f *File) { f.Cluster.ShardNodes = []int{0, 1, 2, 0} }, []string{"cluster.shard_nodes[2]: no such node: ids run from 0 to 1 (got 2)"}},
	{"shard nodes not explicit", func(f *File) { f.Cluster.Placement, f.Cluster.ShardNodes = PlaceRandom, []int{0, 1, 0, 1} }, []string{"cluster.shard_nodes: applies only to placement = \"explicit\""}},
	// The table and its fields.
	{"field without gen", func(f *File) { f.Table.Fields["x"] = Field{} }, []string{"table.fields.x.gen: required: one of \"uniform\", \"zipf\", \"hotspot\", \"categorical\", \"snowflake\", \"sequence\", \"time\", \"uuid\", \"uuidv4\", \"uuidv7\", \"ulid\", \"ksuid\""}},
	{"field name with dash", func(f *File) { f.Table.Fields["a-b"] = Field{Gen: GenUUID} }, []string{"table.fields.a-b: a field name must be letters, digits and underscores"}},
	{"n of a uuid", func(f *File) { f.Table.Fields["x"] = Field{Gen: GenUUID, N: ptr(int64(3))} }, []string{"table.fields.x.n: does not apply to gen = \"uuid\""}},
	{"zipf without n", func(f *File) { f.Table.Fields["x"] = Field{Gen: GenZipf} }, []string{"table.fields.x.n: required for gen = \"zipf\" (the number of distinct ids)"}},
	{"zipf of negative s", func(f *File) { f.Table.Fields["x"] = Field{Gen: GenZipf, N: ptr(int64(9)), S: ptr(-1.0)} }, []string{"table.fields.x.s: must be a number >= 0 (got -1)"}},
	{"hot fraction of 1", func(f *File) {
		f.Table.Fields["x"] = Field{Gen: GenHotspot, N: ptr(int64(9)), HotFraction: ptr(1.0)}
	}, []string{"table.fields.x.hot_fraction: must be between 0 and 1, exclusive (got 1)"}},
	{"hot ops above 1", func(f *File) {
		f.Table.Fields["x"] = Field{Gen: GenHotspot, N: ptr(int64(9)), HotOps: ptr(1.5)}
	}, []string{"table.fields.x.hot_ops: must be between 0 and 1 (got 1.5)"}},
	{"categorical values and count", func(f *File) {
		f.Table.Fields["x"] = Field{Gen: GenCategorical, Values: []Scalar{{Str: "a"}}, Count: ptr(2)}
	}, []string{"table.fields.x: give values or count, not both"}},
	{"categorical value twice", func(f *File) {
		f.Table.Fields["x"] = Field{Gen: GenCategorical, Values: []Scalar{{Str: "a"}, {Str: "a"}}}
	}, []string{"table.fields.x.values[1]: duplicate value \"a\""}},
	{"categorical weights short", func(f *File) {
		f.Table.Fields["x"] = Field{Gen: GenCategorical, Count: ptr(3), Weights: []float64{1, 2}}
	}, []string{"table.fields.x.weights: has 2 entries for 3 values"}},
	{"categorical weight negative", func(f *File) {
		f.Table.Fields["x"] = Field{Gen: GenCategorical, Count: ptr(2), Weights: []float64{1, -2}}
	}, []string{"table.fields.x.weights[1]: must be a number >= 0 (got -2)"}},
	{"categorical weights zero", func(f *File) {
		f.Table.Fields["x"] = Field{Gen: GenCategorical, Count: ptr(2), Weights: []float64{0, 0}}
	}, []string{"table.fields.x.weights: must not all be zero"}},
	// The keyspace.
	{"unknown scheme", func(f *File) { f.Keyspace.Scheme = "consistent" }, []string{"keyspace.scheme: must be one of \"hash\", \"range\", \"directory\", \"redis_cluster\" (got \"consistent\")"}},
	{"no shards", func(f *File) { f.Keyspace.Shards = nil }, []string{"keyspace.shards: required (the number of shards, at least 1)"}},
	{"too many ring points", func(f *File) { f.Keyspace.Ext.Set("vnodes", ptr(10_000_000)) }, []string{"keyspace.vnodes: shards x vnodes must be at most 10000000 ring points (got 4 x 10000000)"}},
	{"range without history", func(f *File) { f.Keyspace.Scheme, f.Table.History = "range", Dur("0s") }, []string{"table.history: must be positive with scheme = \"range\": the initial split points are the quantiles of the keys written during the history"}},
	{"the minimal scenario", func(f *File) {}, nil},
	{"salt at its bound", func(f *File) { f.Keyspace.Salt = ptr(65_536) }, nil},
	{"salt past its bound", func(f *File) { f.Keyspace.Salt = ptr(65_537) }, []string{"keyspace.salt: must be at most 65536 buckets (got 65537): a read of a salted key visits every bucket"}},
	{"salt too large", func(f *File) { f.Keyspace.Salt = ptr(100_000) }, []string{"keyspace.salt: must be at most 65536 buckets (got 100000): a read of a salted key visits every bucket"}},
	{"hash salt without field", func(f *File) { f.Keyspace.Salt, f.Keyspace.SaltMode = ptr(4), "hash" }, []string{"keyspace.salt_field: required with salt_mode = \"hash\" (the field the salt is derived from)"}},
	{"salt field of no field", func(f *File) { f.Keyspace.SaltField = "nope" }, []string{"keyspace.salt_field: no such field \"nope\" in table.fields"}},
	{"no key", func(f *File) { f.Keyspace.Key = nil }, []string{"keyspace.key: required: the partition key's parts, e.g. [\"order_id\"]"}},
	{"key of no field", func(f *File) { f.Keyspace.Key = []string{"nope"} }, []string{"keyspace.key[0]: no such field \"nope\" in table.fields (have id)"}},
	{"hour of a plain field", func(f *File) { f.Keyspace.Key = []string{"hour(id)"} }, []string{"keyspace.key[0]: hour() needs a time-ordered field (gen = \"time\", \"snowflake\", \"sequence\", \"uuidv7\", \"ulid\" or \"ksuid\"); \"id\" is gen = \"uniform\""}},
	{"hash modulus zero", func(f *File) { f.Keyspace.Key = []string{"hash(id, 0)"} }, []string{"keyspace.key[0]: hash modulus \"0\" must be a whole number >= 1"}},
	{"directory without entries", func(f *File) { f.Keyspace.Scheme = "directory" }, []string{"keyspace.directory: required with scheme = \"directory\": [[keyspace.directory]] entries with field, value and shards"}},
	{"directory of no field", func(f *File) {
		f.Keyspace.Scheme = "directory"
		f.Keyspace.Ext.Set("directory", []keyspace.DirectoryKey{{Field: "nope", Shards: []int{0}}})
	}, []string{"keyspace.directory[0].field: no such field \"nope\" in table.fields"}},
	{"directory value out of range", func(f *File) {
		f.Keyspace.Scheme = "directory"
		f.Keyspace.Ext.Set("directory", []keyspace.DirectoryKey{{Field: "id", Value: Scalar{Int: 100, IsInt: true}, Shards: []int{0}}})
	}, []string{"keyspace.directory[0].value: 100 is not a value of field \"id\" (an integer from 0 to 99)"}},
	{"directory value twice", func(f *File) {
		e := keyspace.DirectoryKey{Field: "id", Value: Scalar{Int: 1, IsInt: true}, Shards: []int{0}}
		f.Keyspace.Scheme = "directory"
		f.Keyspace.Ext.Set("directory", []keyspace.DirectoryKey{e, e})
	}, []string{"keyspace.directory[1].value: value 1 of \"id\" is already placed by keyspace.directory[0]"}},
	{"directory of no shard", func(f *File) {
		f.Keyspace.Scheme = "directory"
		f.Keyspace.Ext.Set("directory", []keyspace.DirectoryKey{{Field: "id", Value: Scalar{Int: 1, IsInt: true}, Shards: []int{9}}})
	}, []string{"keyspace.directory[0].shards[0]: no such shard: shards run from 0 to 3 (got 9)"}},
	{"directory of every shard", func(f *File) {
		f.Keyspace.Scheme = "directory"
		f.Keyspace.Ext.Set("directory", []keyspace.DirectoryKey{{Field: "id", Value: Scalar{Int: 1, IsInt: true}, Shards: []int{0, 1, 2, 3}}})
	}, []string{"keyspace.directory: the entries name all 4 shards, leaving none for the rows they do not list"}},
	{"redis slots for other shards", func(f *File) {
		f.Keyspace.Scheme = "redis_cluster"
		f.Keyspace.Ext.Set("slots", [][]int{{0, 16383}})
	}, []string{"keyspace.slots: has 1 slot ranges for keyspace.shards = 4: each range is one shard (leave shards out to take the ranges' count)"}},
	{"redis slot range of one number", func(f *File) {
		f.Keyspace.Scheme, f.Keyspace.Shards = "redis_cluster", nil
		f.Keyspace.Ext.Set("slots", [][]int{{0}})
	}, []string{"keyspace.slots[0]: must be [first, last] (got 1 numbers)"}},
	{"copies without count", func(f *File) { f.Keyspace.Copies = &Copies{Top: ptr(1)} }, []string{"keyspace.copies.count: required: how many copies each hot key is spread over, 2 to 64", "keyspace.copies.top: needs a zipf, hotspot or categorical field, whose popular values are known; this one is gen = \"uniform\" (list keys instead)"}},
	{"copies keys and top", func(f *File) {
		f.Keyspace.Copies = &Copies{Count: ptr(2), Top: ptr(1), Keys: []Scalar{{Int: 1, IsInt: true}}}
	}, []string{"keyspace.copies: give keys or top, not both"}},
	{"copies of a key twice", func(f *File) {
		f.Keyspace.Copies = &Copies{Count: ptr(2), Keys: []Scalar{{Int: 1, IsInt: true}, {Int: 1, IsInt: true}}}
	}, []string{"keyspace.copies.keys[1]: value 1 is listed twice"}},
	{"copies of the top of a uniform field", func(f *File) { f.Keyspace.Copies = &Copies{Count: ptr(2), Top: ptr(1)} }, []string{"keyspace.copies.top: needs a zipf, hotspot or categorical field, whose popular values are known; this one is gen = \"uniform\" (list keys instead)"}},
	{"copies of a field not in the key", func(f *File) {
		f.Table.Fields["x"] = Field{Gen: GenUUID}
		f.Keyspace.Copies = &Copies{Count: ptr(2), Top: ptr(1), Field: "x"}
	}, []string{"keyspace.copies.field: \"x\" must be a plain part of keyspace.key (have \"id\")"}},
	// Streams.
	{"no streams", func(f *File) { f.Streams = nil }, []string{"streams: required: at least one [[streams]] entry"}},
	{"stream without name", func(f *File) { f.Streams[0].Name = "" }, []string{"streams[0].name: required"}},
	{"stream name with space", func(f *File) { f.Streams[0].Name = "a b" }, []string{"streams[0].name: must be letters, digits, '_', '-' or '.' (got \"a b\")"}},
	{"stream name twice", func(f *File) { f.Streams = append(f.Streams, f.Streams[0]) }, []string{"streams[1].name: duplicate stream name \"w\""}},
	{"stream without op", func(f *File) { f.Streams[0].Op = "" }, []string{"streams[0].op: required: \"write\", \"read\" or \"scan\""}},
	{"stream of op delete", func(f *File) { f.Streams[0].Op = "delete" }, []string{"streams[0].op: must be one of \"write\", \"read\", \"scan\" (got \"delete\")"}},
	{"rate and schedule", func(f *File) { f.Streams[0].Schedule = []SchedulePoint{{}} }, []string{"streams[0].rate: give rate or schedule, not both"}},
	{"no rate", func(f *File) { f.Streams[0].Rate = nil }, []string{"streams[0].rate: required: rate = N (requests per second) or schedule = [ { at, rate }, ... ]"}},
	{"negative rate", func(f *File) { f.Streams[0].Rate = ptr(-1.0) }, []string{"streams[0].rate: must be a number of requests per second >= 0 (got -1)"}},
	{"schedule point without at", func(f *File) {
		f.Streams[0].Rate, f.Streams[0].Schedule = nil, []SchedulePoint{{Rate: ptr(1.0)}}
	}, []string{"streams[0].schedule[0].at: required: a clock time such as \"08:00\" or a duration since the start such as \"2h\""}},
	{"schedule point without rate", func(f *File) {
		f.Streams[0].Rate, f.Streams[0].Schedule = nil, []SchedulePoint{{At: Instant{Text: "1s"}}}
	}, []string{"streams[0].schedule[0].rate: required"}},
	{"schedule out of order", func(f *File) {
		f.Streams[0].Rate = nil
		f.Streams[0].Schedule = []SchedulePoint{{At: Instant{Text: "2s"}, Rate: ptr(1.0)}, {At: Instant{Text: "1s"}, Rate: ptr(1.0)}}
	}, []string{"streams[0].schedule[1].at: schedule points must be in increasing time order (\"1s\" is not after the point before it)"}},
	{"no cost", func(f *File) { f.Streams[0].Cost = Duration{} }, []string{"streams[0].cost: required: the mean CPU time of one request, e.g. \"0.3ms\""}},
	{"cost of two hours", func(f *File) { f.Streams[0].Cost = Dur("2h") }, []string{"streams[0].cost: must be at most 1h0m0s (got \"2h\")"}},
	{"cv without lognormal", func(f *File) { f.Streams[0].CV = ptr(0.5) }, []string{"streams[0].cv: applies only to service = \"lognormal\""}},
	{"where on a write", func(f *File) { f.Streams[0].Where = map[string]string{"id": "="} }, []string{"streams[0].where: applies only to op = \"scan\""}},
	{"where of a bad span", func(f *File) {
		f.Streams[0].Op, f.Streams[0].Where = OpScan, map[string]string{"id": "soon"}
	}, []string{"streams[0].where.id: must be \"=\" (an equality) or a positive duration (the last D of a time field) (got \"soon\")"}},
	{"where span of a plain field", func(f *File) {
		f.Streams[0].Op, f.Streams[0].Where = OpScan, map[string]string{"id": "1h"}
	}, []string{"streams[0].where.id: a duration constrains only a time-ordered field (gen = \"time\", \"snowflake\", \"sequence\", \"uuidv7\", \"ulid\" or \"ksuid\"); \"id\" is gen = \"uniform\""}},
	{"stream field of no field", func(f *File) { f.Streams[0].Fields = map[string]Field{"nope": {Gen: GenUUID}} }, []string{"streams[0].fields.nope: no such field \"nope\" in table.fields"}},
	{"stream field turned time-ordered", func(f *File) { f.Streams[0].Fields = map[string]Field{"id": {Gen: GenTime}} }, []string{"streams[0].fields.id.gen: a stream cannot change whether \"id\" is time-ordered (table: \"uniform\", stream: \"time\")"}},
	{"burst without every", func(f *File) { f.Streams[0].Burst = &Burst{Width: Dur("1s"), Factor: ptr(2.0)} }, []string{"streams[0].burst.every: required: the period of the bursts, a duration such as \"1m\""}},
	{"burst as wide as its period", func(f *File) {
		f.Streams[0].Burst = &Burst{Every: Dur("1s"), Width: Dur("1s"), Factor: ptr(2.0)}
	}, []string{"streams[0].burst.width: must be shorter than every = \"1s\" (got \"1s\"): a burst is the first width of each period"}},
	{"burst factor below 1", func(f *File) {
		f.Streams[0].Burst = &Burst{Every: Dur("1m"), Width: Dur("1s"), Factor: ptr(0.5)}
	}, []string{"streams[0].burst.factor: must be a number from 1 to 1000000: the rate inside a burst is rate x factor (got 0.5)"}},
	{"row cost of a write", func(f *File) { f.Streams[0].RowCost = Dur("1us") }, []string{"streams[0].row_cost: applies only to op = \"scan\": a scan's CPU time per row it reads"}},
	{"trace stream with op", func(f *File) { f.Streams[0].Trace = &Trace{Path: "log.csv"} }, []string{"streams[0].op: a trace stream takes each record's operation from the log: remove op (got \"write\")", "streams[0].rate: a trace stream's arrivals come from the log: remove rate and schedule", "streams[0].trace.key_fields: no such field \"key\" in table.fields: declare the fields the log's keys hold (have id)"}},
	{"trace of an absolute path", func(f *File) {
		f.Streams[0] = Stream{Name: "log", Cost: Dur("1ms"), Trace: &Trace{Path: "/var/log.csv"}}
	}, []string{"streams[0].trace.path: must be a relative path with '/' (from the scenario file's directory) (got \"/var/log.csv\")", "streams[0].trace.key_fields: no such field \"key\" in table.fields: declare the fields the log's keys hold (have id)"}},
	{"trace of an unknown format", func(f *File) {
		f.Streams[0] = Stream{Name: "log", Cost: Dur("1ms"), Trace: &Trace{Path: "log.csv", Format: "apache"}}
	}, []string{"streams[0].trace.format: must be one of \"csv\", \"twitter\", \"kvcache\" (got \"apache\")", "streams[0].trace.key_fields: no such field \"key\" in table.fields: declare the fields the log's keys hold (have id)"}},
	{"trace at speed zero", func(f *File) {
		f.Streams[0] = Stream{Name: "log", Cost: Dur("1ms"), Trace: &Trace{Path: "log.csv", Speed: ptr(0.0)}}
	}, []string{"streams[0].trace.speed: must be a number from 1e-06 to 1e+06 (got 0)", "streams[0].trace.key_fields: no such field \"key\" in table.fields: declare the fields the log's keys hold (have id)"}},
	{"trace key fields of two characters", func(f *File) {
		f.Streams[0] = Stream{Name: "log", Cost: Dur("1ms"), Trace: &Trace{Path: "log.csv", KeyFields: &KeyFields{Delimiter: "::", Names: []string{"id"}}}}
	}, []string{"streams[0].trace.key_fields.delimiter: must be one character (got \"::\")"}},
	{"trace key field of no field", func(f *File) {
		f.Streams[0] = Stream{Name: "log", Cost: Dur("1ms"), Trace: &Trace{Path: "log.csv"}}
	}, []string{"streams[0].trace.key_fields: no such field \"key\" in table.fields: declare the fields the log's keys hold (have id)"}},
	{"trace with clients", func(f *File) {
		f.Streams[0] = Stream{Name: "log", Cost: Dur("1ms"), Clients: ptr(3), Trace: &Trace{Path: "log.csv", KeyFields: &KeyFields{Delimiter: ":", Names: []string{"id"}}}}
	}, []string{"streams[0].clients: a trace stream replays its log as it is: remove clients"}},
	// Actions.
	// Actions: the settings an action changes are the mechanisms' (mechanisms/operator,
	// cache, migrate, rebalance), none of which this package's tests import.
	{"action without at", func(f *File) { f.Actions = []Action{{Note: "n"}} }, []string{"actions[0].at: required: a clock time such as \"08:00\" or a duration since the start such as \"2h\"", "actions[0]: says nothing to do"}},
	// The detail range.
	{"detail without from", func(f *File) { f.Detail = &Detail{To: Instant{Text: "2s"}} }, []string{"detail.from: required: a clock time such as \"08:00\" or a duration since the start such as \"2h\""}},
	{"detail to before from", func(f *File) {
		f.Detail = &Detail{From: Instant{Text: "4s"}, To: Instant{Text: "2s"}, Window: Dur("1s")}
	}, []string{"detail.to: must come after detail.from \"4s\", within the run (got \"2s\")"}},
	// Claims.
	{"claim without text", func(f *File) {
		f.Claims = []Claim{{Measure: "p99", Stream: "w", Value: ClaimValue{Text: "1", Number: 1, set: true}}}
	}, []string{"claims[0].text: required: the claim in the story's words"}},
	{"claim of no measure", func(f *File) { f.Claims = []Claim{{Text: "t", Measure: "p50"}} }, []string{"claims[0].measure: must be one of \"offered_rate\", \"completed_rate\", \"p99_crossing\", \"first_retry\", \"top_shard_share\", \"partitions\", \"p99\", \"p99_ratio\" (got \"p50\")"}},
	{"claim without its stream", func(f *File) {
		f.Claims = []Claim{{Text: "t", Measure: "p99", Value: ClaimValue{Text: "1", Number: 1, set: true}}}
	}, []string{"claims[0].stream: required by measure = \"p99\""}},
	{"claim of a threshold it does not take", func(f *File) {
		f.Claims = []Claim{{Text: "t", Measure: "p99", Stream: "w", Threshold: Dur("1s"), Value: ClaimValue{Text: "1", Number: 1, set: true}}}
	}, []string{"claims[0].threshold: does not apply to measure = \"p99\""}},
	{"claim of no stream", func(f *File) {
		f.Claims = []Claim{{Text: "t", Measure: "p99", Stream: "r", Value: ClaimValue{Text: "1", Number: 1, set: true}}}
	}, []string{"claims[0].stream: names no stream of the scenario (got \"r\")"}},
	{"claim of a time as a number", func(f *File) {
		f.Claims = []Claim{{Text: "t", Measure: "first_retry", Stream: "w", Value: ClaimValue{Text: "1", Number: 1, set: true}}}
	}, []string{"claims[0].value: must be a clock time such as \"08:15\" for measure = \"first_retry\" (got 1)"}},
	{"claim within no share", func(f *File) {
		f.Claims = []Claim{{Text: "t", Measure: "p99", Stream: "w", Within: "10", Value: ClaimValue{Text: "1", Number: 1, set: true}}}
	}, []string{"claims[0].within: must be a share of the value such as \"10%\" for measure = \"p99\" (got \"10\")"}},
	{"claim at past the end", func(f *File) {
		f.Claims = []Claim{{Text: "t", Measure: "offered_rate", Stream: "w", At: Instant{Text: "20s"}, Value: ClaimValue{Text: "1", Number: 1, set: true}}}
	}, []string{"claims[0].at: must be inside the run, which ends at 00:00:10 (got \"20s\")"}},
}

// TestProblems: each scenario with one thing wrong gets the problems its case names, at
// their dotted keys, with their messages, in order, and nothing else.
func TestProblems(t *testing.T) {
	for _, c := range problemCases {
		f := minimal()
		c.mutate(&f)
		_, probs := Resolve(&f)
		var got []string
		for _, p := range probs {
			got = append(got, p.Key+": "+p.Msg)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		if err := f.Validate(); (err == nil) != (len(c.want) == 0) {
			t.Errorf("%s: Validate() = %v, want the problems joined", c.name, err)
		}
	}
}

// TestTopIDs: top = N copies a categorical field's N heaviest values, the first listed
// among equal weights, and without weights its first N; a field of fewer values is refused.
func TestTopIDs(t *testing.T) {
	cases := []struct {
		fs   FieldSpec
		n    int
		want []uint64
		err  string
	}{
		{FieldSpec{Gen: GenCategorical, Count: 5, Weights: []float64{1, 5, 3, 5, 0}}, 3, []uint64{1, 3, 2}, ""},
		{FieldSpec{Gen: GenCategorical, Count: 4}, 2, []uint64{0, 1}, ""},
		{FieldSpec{Gen: GenCategorical, Count: 2}, 3, nil, "is 3, but the field has only 2 values"},
		{FieldSpec{Gen: GenHotspot, N: 100, HotFraction: 0.1, HotOps: 0.9}, 2, []uint64{0, 1}, ""},
		{FieldSpec{Gen: GenZipf, N: 10, S: 1}, 11, nil, "is 11, but the field has only 10 ids"},
	}
	for _, c := range cases {
		got, err := topIDs(c.fs, c.n)
		if msg := fmt.Sprint(err); (c.err == "" && err != nil) || (c.err != "" && msg != c.err) || !slices.Equal(got, c.want) {
			t.Errorf("topIDs(%s, %d) = %v, %v; want %v, %q", c.fs.Gen, c.n, got, err, c.want, c.err)
		}
	}
}
