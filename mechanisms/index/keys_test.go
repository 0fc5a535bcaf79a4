package index_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/index"
	_ "github.com/shardsim/shardsim/mechanisms/locks" // a stream's lock, which an index refuses
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	_ "github.com/shardsim/shardsim/mechanisms/split" // [keyspace.split], which an index refuses
)

// fields and byHour are the fields and the index of the keys' tests: an index keyed
// (id, hour(ts)) on 8 shards.
const (
	fields = "[table.fields.ts]\ngen = \"time\"\n[table.fields.n]\ngen = \"uniform\"\nn = 100\n"
	byHour = "[[indexes]]\nname = \"by_hour\"\nkey = [\"id\", \"hour(ts)\"]\nshards = 8\n"
	scan   = "[[streams]]\nname = \"q\"\nop = \"scan\"\nrate = 1\ncost = \"1ms\"\nwhere = { id = \"=\", ts = \"2h\" }\nindex = \"by_hour\"\n"
)

// TestKeys: [[indexes]] and a stream's index, declared here, resolve into the index's
// layout (its own key design and shards), its mode (async by default) and limit, and a
// scan routed over it plans its query over the index's parts, not the table's.
func TestKeys(t *testing.T) {
	s, probs := mechtest.Resolve(t, fields+byHour+"limit = { rate = 500.0 }\n"+scan)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	x := s.Indexes[0]
	if !x.Async || x.WriteRate != 500 || x.ReadRate != 0 || x.Layout.Shards != 8 || len(x.Layout.Parts) != 2 {
		t.Errorf("index %+v, layout %d shards, %d parts: want async, 500 writes/s, 8 shards, 2 parts", x, x.Layout.Shards, len(x.Layout.Parts))
	}
	if s.Streams[1].Index != 1 || s.Streams[1].Query != nil {
		t.Errorf("scan: index %d, table query %v; want index 1 and no query over the table", s.Streams[1].Index, s.Streams[1].Query)
	}
	if q := x.Layout.Streams[1].Query; len(q) != 2 {
		t.Errorf("the scan's query over the index has %d parts, want 2 (id known, hour buckets of 2h)", len(q))
	}
	if s.Shards != 4 || index.Shards(s) != 8 || s.OtherShards() != 8 {
		t.Errorf("table %d shards, indexes %d, besides the table's %d; want 4, 8 and 8", s.Shards, index.Shards(s), s.OtherShards())
	}
}

// TestProblems: each broken index is reported at its own dotted key, a misspelt key with
// a suggestion, and what an index is not combined with is refused.
func TestProblems(t *testing.T) {
	const read = "[[streams]]\nname = \"r\"\nop = \"read\"\nrate = 1\ncost = \"1ms\"\nindex = \"by_day\"\n"
	for _, c := range []struct{ extra, want string }{
		{"[[indexes]]\nkey = [\"id\"]\nshards = 8\n", "indexes[0].name: required: the index's name, as a query names it"},
		{byHour + byHour, "indexes[1].name: index \"by_hour\" is declared twice"},
		{"[[indexes]]\nname = \"by_hour\"\nkey = [\"id\"]\n", "indexes[0].shards: required (the number of shards, at least 1)"},
		{"[[indexes]]\nname = \"by_hour\"\nshards = 8\n", "indexes[0].key: required: the partition key's parts, e.g. [\"order_id\"]"},
		{"[[indexes]]\nname = \"by_hour\"\nkey = [\"status\"]\nshards = 8\n", "indexes[0].key[0]: no such field \"status\" in table.fields (have id, n, ts)"},
		{"[[indexes]]\nname = \"by_hour\"\nkey = [\"hour(n)\"]\nshards = 8\n", "indexes[0].key[0]: hour() needs a time-ordered field (gen = \"time\", \"snowflake\", \"sequence\", \"uuidv7\", \"ulid\" or \"ksuid\"); \"n\" is gen = \"uniform\""},
		{byHour + "scheme = \"directory\"\n", "indexes[0].scheme: an index cannot use scheme = \"directory\" (it has no entries of its own); use \"hash\" or \"range\""},
		{byHour + "salt = 4\nsalt_mode = \"hash\"\n", "indexes[0].salt_field: required with salt_mode = \"hash\" (the field the salt is derived from)"},
		{byHour + "limit = {}\n", "indexes[0].limit.rate: required: each index partition's writes a second (and read_rate its reads)"},
		{byHour + "limit = { rate = -1.0 }\n", "indexes[0].limit.rate: must be a number of partitions a second above 0 and at most 1e9 (got -1)"},
		{byHour + "mode = \"later\"\n", `indexes[0].mode: must be one of "sync", "async" (got "later")`},
		{byHour + "shard = 8\n", `indexes[0].shard: unknown key; did you mean "shards"?`},
		{byHour + read, "streams[1].index: no such index \"by_day\" in [[indexes]] (have \"by_hour\")"},
		{"index = \"by_hour\"\n" + byHour, "streams[0].index: applies only to reads and scans: a write writes every index"},
		{"indx = \"by_hour\"\n" + byHour, `streams[0].indx: unknown key; did you mean "index"?`},
		{byHour + "[keyspace.split]\nrows = 1000\n", "indexes: not with shard splits ([keyspace.split] or split_for_heat): a split would renumber the shards an index's follow"},
		{"lock = \"1ms\"\n" + byHour, "streams[0].lock: not with [[indexes]]: a write's lock would be taken on each index's shard as well"},
		{"[[indexes]]\nname = \"by_hour\"\nkey = [\"hash(id, 1000)\", \"hour(ts)\"]\nshards = 8\n[[streams]]\nname = \"q\"\nop = \"scan\"\nrate = 1\ncost = \"1ms\"\nwhere = { ts = \"1000d\" }\nindex = \"by_hour\"\n",
			"streams[1].where: one scan would visit up to 24001000 partitions; at most 100000 are allowed (constrain more fields or use wider time buckets)"},
	} {
		// Keys of the first stream, before any table header, stay with it.
		stream, rest := "", c.extra
		if i := strings.Index(c.extra, "\n["); i >= 0 && !strings.HasPrefix(c.extra, "[") {
			stream, rest = c.extra[:i+1], c.extra[i+1:]
		}
		_, probs := mechtest.Resolve(t, stream+fields+rest)
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
}
