package scenario

import (
	"fmt"
	"math"
	"strings"

	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
)

// Index is one [[indexes]] entry: a global secondary index of the table, a second layout
// of its rows with its own key design, scheme and shards (docs/scenario.md, "[[indexes]]";
// docs/mitigations.md, "Global secondary indexes"). Its keyspace keys mean what
// [keyspace]'s do.
type Index struct {
	Name      string    `toml:"name"`
	Key       []string  `toml:"key"`
	Scheme    Scheme    `toml:"scheme"`
	Shards    *int      `toml:"shards"`
	Salt      *int      `toml:"salt"`
	SaltMode  SaltMode  `toml:"salt_mode"`
	SaltField string    `toml:"salt_field"`
	Mode      IndexMode `toml:"mode"`
	// Limit is each index partition's throughput limit (nil: none).
	Limit *IndexLimit `toml:"limit"`
	// Ext holds the shard schemes' keys an index takes (scheme.go: hash, vnodes).
	Ext tomlx.Extensions `toml:"-"`
}

// IndexLimit is [indexes.limit]: each index partition admits Rate partition writes and
// ReadRate partition reads a second, and banks Burst of them (as [keyspace.limits]).
type IndexLimit struct {
	Rate     *float64 `toml:"rate"`
	ReadRate *float64 `toml:"read_rate"`
	Burst    Duration `toml:"burst"`
}

// IndexMode is when a write's client hears of it: "sync", once the table and the index
// have it; "async", once the table has it (the default, as DynamoDB's global secondary
// indexes).
type IndexMode string

const (
	IndexSync  IndexMode = "sync"
	IndexAsync IndexMode = "async"
)

func (m *IndexMode) DecodeTOML(v any) error { return decodeEnum(m, v, IndexSync, IndexAsync) }

// IndexSpec is a validated index.
type IndexSpec struct {
	Name string
	// Layout is the variant as the index lays its rows out: its key design, scheme,
	// shards and salt in place of the table's, and each stream's scan query planned over
	// them (a stream routed over another index, or over the table, plans no query here).
	// Placement (compile.IndexPlacement) and planners (build) are made from it.
	Layout *Resolved
	Async  bool
	// WriteRate and ReadRate are the partition's limits a second (0: none), Burst what
	// it banks.
	WriteRate, ReadRate float64
	Burst               sim.Time
}

// maxIndexes bounds [[indexes]]: every write writes each of them.
const maxIndexes = 20

// resolveIndexes reads [[indexes]] and the streams' index, after the streams and before
// their queries, which a stream routed over an index plans over the index's design.
func resolveIndexes(c *checker, f *File, s *Resolved) {
	if len(f.Indexes) > maxIndexes {
		c.add("indexes", "at most %d indexes are allowed (got %d): every write writes each one", maxIndexes, len(f.Indexes))
		return
	}
	names := map[string]int{}
	for i, x := range f.Indexes {
		key := fmt.Sprintf("indexes[%d]", i)
		indexName(c, key+".name", x.Name, names, i)
		is := IndexSpec{Name: x.Name, Layout: indexLayout(c, key, x, f, s)}
		is.Async = oneOf(c, key+".mode", string(x.Mode), string(IndexAsync), string(IndexSync), string(IndexAsync)) == string(IndexAsync)
		resolveIndexLimit(c, key+".limit", x.Limit, &is)
		s.Indexes = append(s.Indexes, is)
	}
	for i, st := range f.Streams {
		if st.Index == "" {
			continue
		}
		key := fmt.Sprintf("streams[%d].index", i)
		j, ok := names[st.Index]
		switch {
		case len(s.Streams) != len(f.Streams) || i >= len(s.Streams):
			// A replayed stream became two (its reads and its writes), or a stream was
			// refused: the streams no longer line up with the file's.
			c.add(key, "not in a scenario with a stream that replays a log, or with a stream in error")
		case !ok:
			c.add(key, "no such index %q in [[indexes]] (have %s)", st.Index, strings.Join(quoteAll(sortedKeys(names)), ", "))
		case s.Streams[i].Op == sim.Write:
			c.add(key, "applies only to reads and scans: a write writes every index")
		case st.Trace != nil:
			c.add(key, "not with a stream that replays a log: the log's keys are the table's")
		default:
			s.Streams[i].Index = j + 1
		}
	}
	for j := range s.Indexes {
		indexQueries(c, s, j)
	}
}

// indexName checks index i's name: a reader's name for its shards (by_status/3).
func indexName(c *checker, key, name string, names map[string]int, i int) {
	switch {
	case name == "":
		c.add(key, "required: the index's name, as a query names it")
	case !streamNameRE.MatchString(name) || len(name) > maxNameLength:
		c.add(key, "must be at most %d letters, digits, '_', '-' or '.' (got %q)", maxNameLength, name)
	default:
		if _, dup := names[name]; dup {
			c.add(key, "index %q is declared twice", name)
			return
		}
		names[name] = i
	}
}

// indexLayout resolves index x's keyspace as [keyspace] is resolved, over a copy of the
// variant, and reports its problems under the index's key (indexes[0].shards).
func indexLayout(c *checker, key string, x Index, f *File, s *Resolved) *Resolved {
	scheme := x.Scheme
	if scheme == "" {
		scheme = Scheme(keyspace.DefaultScheme)
	}
	mode := x.SaltMode
	if mode == "" {
		mode = SaltMode(keyspace.SaltRandom.String())
	}
	k := Keyspace{Scheme: scheme, Shards: x.Shards, Key: x.Key, Salt: x.Salt, SaltMode: mode, SaltField: x.SaltField,
		Splits: SplitsHistory, Ext: x.Ext}
	t := *s
	t.Key, t.Parts, t.Copies, t.SchemeOptions = nil, nil, nil, nil
	t.Streams = append([]StreamSpec(nil), s.Streams...)
	if why := keyspace.SchemeKind(scheme).IndexRefusal(); why != "" {
		c.add(key+".scheme", "an index cannot use scheme = %q %s", string(scheme), why)
		return &t
	}
	own := &checker{}
	resolveKeyspace(own, &File{Keyspace: k, Streams: f.Streams}, &t)
	for _, p := range own.probs {
		if rest, ok := strings.CutPrefix(p.Key, "keyspace."); ok {
			p.Key = key + "." + rest
		}
		c.probs = append(c.probs, p)
	}
	return &t
}

// indexQueries plans, over index j's layout, the queries of the scans routed over it.
func indexQueries(c *checker, s *Resolved, j int) {
	t := s.Indexes[j].Layout
	for i := range t.Streams {
		t.Streams[i].Index = 0
		if i < len(s.Streams) && s.Streams[i].Index != j+1 {
			t.Streams[i].Where = nil // not routed here: no query to plan
		}
		t.Streams[i].Query = nil
	}
	if len(t.Parts) == len(t.Key) && len(t.Parts) > 0 {
		resolveQueries(c, t)
	}
}

// resolveIndexLimit reads an index's [indexes.limit].
func resolveIndexLimit(c *checker, key string, l *IndexLimit, is *IndexSpec) {
	if l == nil {
		return
	}
	rate := func(k string, p *float64) float64 {
		if p == nil {
			return 0
		}
		if !(*p > 0) || math.IsInf(*p, 0) || *p > 1e9 {
			c.add(key+"."+k, "must be a number of partitions a second above 0 and at most 1e9 (got %v)", *p)
			return 0
		}
		return *p
	}
	is.WriteRate, is.ReadRate = rate("rate", l.Rate), rate("read_rate", l.ReadRate)
	if l.Rate == nil && l.ReadRate == nil {
		c.add(key+".rate", "required: each index partition's writes a second (and read_rate its reads)")
	}
	is.Burst = c.duration(key+".burst", l.Burst, "0s", 0)
}

// checkIndexes refuses what an index cannot be combined with, once the whole variant is
// read: the engine's other shard layouts (a migration, shard splits, a rebalance) would
// share its shard ids, and a write's row lock would be taken on the index's shards too.
func checkIndexes(c *checker, s *Resolved) {
	if len(s.Indexes) == 0 {
		return
	}
	switch {
	case s.Migration != nil:
		c.add("indexes", "not with a migrate action: the migration's new layout does not carry the index")
	case s.Rebalance != nil:
		c.add("indexes", "not with an add_nodes action: a rebalance moves the table's shards only")
	case s.Split != nil || s.Limits != nil && s.Limits.SplitForHeat:
		c.add("indexes", "not with shard splits ([keyspace.split] or split_for_heat): a split would renumber the shards an index's follow")
	}
	for i := range s.Streams {
		if ss := &s.Streams[i]; ss.Op == sim.Write && ss.Lock.Mean > 0 {
			c.add(fmt.Sprintf("streams[%d].lock", i), "not with [[indexes]]: a write's lock would be taken on each index's shard as well")
		}
		if ss := &s.Streams[i]; ss.Op == sim.Write && ss.Trace != nil {
			c.add(fmt.Sprintf("streams[%d].trace", i), "not with [[indexes]]: a replayed write does not know the index's key fields")
		}
	}
}

// IndexShards is the shards of every index: the shard ids the engine gives them after
// the table's.
func (s *Resolved) IndexShards() int {
	n := 0
	for _, x := range s.Indexes {
		if x.Layout != nil {
			n += x.Layout.Shards
		}
	}
	return n
}
