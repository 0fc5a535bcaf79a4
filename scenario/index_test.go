package scenario

import (
	"fmt"
	"slices"
	"testing"
)

// indexFile is the minimal scenario with a time field and one index keyed (id, hour(ts)).
func indexFile() File {
	f := minimal()
	f.Table.Fields["ts"] = Field{Gen: GenTime}
	f.Indexes = []Index{{Name: "by_hour", Key: []string{"id", "hour(ts)"}, Shards: ptr(8)}}
	return f
}

// TestIndexResolves: the index's layout has its own key design and shards, its mode is
// async by default, and a scan routed over it plans its query over the index's parts.
func TestIndexResolves(t *testing.T) {
	f := indexFile()
	rate := 1.0
	f.Streams = append(f.Streams, Stream{Name: "q", Op: OpScan, Rate: &rate, Cost: Dur("1ms"), Index: "by_hour",
		Where: map[string]string{"id": "=", "ts": "2h"}})
	f.Indexes[0].Limit = &IndexLimit{Rate: ptr(500.0)}
	s, probs := Resolve(&f)
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
	if s.Shards != 4 || s.IndexShards() != 8 {
		t.Errorf("table %d shards, indexes %d; want 4 and 8", s.Shards, s.IndexShards())
	}
}

// TestIndexProblems: each broken index is reported at its own dotted key.
func TestIndexProblems(t *testing.T) {
	rate := 1.0
	cases := []struct {
		name   string
		mutate func(f *File)
		want   string
	}{
		{"no name", func(f *File) { f.Indexes[0].Name = "" }, "indexes[0].name: required: the index's name, as a query names it"},
		{"name twice", func(f *File) { f.Indexes = append(f.Indexes, f.Indexes[0]) }, "indexes[1].name: index \"by_hour\" is declared twice"},
		{"no shards", func(f *File) { f.Indexes[0].Shards = nil }, "indexes[0].shards: required (the number of shards, at least 1)"},
		{"no key", func(f *File) { f.Indexes[0].Key = nil }, "indexes[0].key: required: the partition key's parts, e.g. [\"order_id\"]"},
		{"unknown field", func(f *File) { f.Indexes[0].Key = []string{"status"} }, "indexes[0].key[0]: no such field \"status\" in table.fields (have id, ts)"},
		{"hour of a number", func(f *File) { f.Indexes[0].Key = []string{"hour(id)"} }, "indexes[0].key[0]: hour() needs a time-ordered field (gen = \"time\", \"snowflake\", \"sequence\", \"uuidv7\", \"ulid\" or \"ksuid\"); \"id\" is gen = \"uniform\""},
		{"directory", func(f *File) { f.Indexes[0].Scheme = "directory" }, "indexes[0].scheme: an index cannot use scheme = \"directory\" (it has no entries of its own); use \"hash\" or \"range\""},
		{"salt by hash without field", func(f *File) { f.Indexes[0].Salt, f.Indexes[0].SaltMode = ptr(4), "hash" }, "indexes[0].salt_field: required with salt_mode = \"hash\" (the field the salt is derived from)"},
		{"limit without rate", func(f *File) { f.Indexes[0].Limit = &IndexLimit{} }, "indexes[0].limit.rate: required: each index partition's writes a second (and read_rate its reads)"},
		{"negative rate", func(f *File) { f.Indexes[0].Limit = &IndexLimit{Rate: ptr(-1.0)} }, "indexes[0].limit.rate: must be a number of partitions a second above 0 and at most 1e9 (got -1)"},
		{"no such index", func(f *File) {
			f.Streams = append(f.Streams, Stream{Name: "r", Op: OpRead, Rate: &rate, Cost: Dur("1ms"), Index: "by_day"})
		}, "streams[1].index: no such index \"by_day\" in [[indexes]] (have \"by_hour\")"},
		{"write over an index", func(f *File) { f.Streams[0].Index = "by_hour" }, "streams[0].index: applies only to reads and scans: a write writes every index"},
		{"scan too wide for the index", func(f *File) {
			f.Streams = append(f.Streams, Stream{Name: "q", Op: OpScan, Rate: &rate, Cost: Dur("1ms"), Index: "by_hour", Where: map[string]string{"ts": "1000d"}})
			f.Indexes[0].Key = []string{"hash(id, 1000)", "hour(ts)"}
		}, "streams[1].where: one scan would visit up to 24001000 partitions; at most 100000 are allowed (constrain more fields or use wider time buckets)"},
	}
	for _, c := range cases {
		f := indexFile()
		c.mutate(&f)
		_, probs := Resolve(&f)
		var got []string
		for _, p := range probs {
			got = append(got, fmt.Sprint(p))
		}
		if !slices.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want among them %q", c.name, got, c.want)
		}
	}
}
