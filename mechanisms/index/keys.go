package index

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The indexes' keys, [[indexes]] (a table of the top level) and a stream's index
// (docs/scenario.md, "[[indexes]]"), are declared and checked here, and resolved after the
// streams and before their queries (scenario.RegisterRoutingMechanism): a read over an
// index plans its where on the index's key design. They resolve into Resolved.Indexes
// (scenario.IndexSpec) and each routed stream's StreamSpec.Index, which compile and the
// reports read; what an index cannot be combined with is checked once the whole variant is
// read (scenario.RegisterLateCheck).

// Table is one [[indexes]] entry as written: its keyspace keys mean what [keyspace]'s do.
type Table struct {
	Name      string            `toml:"name"`
	Key       []string          `toml:"key"`
	Scheme    scenario.Scheme   `toml:"scheme"`
	Shards    *int              `toml:"shards"`
	Salt      *int              `toml:"salt"`
	SaltMode  scenario.SaltMode `toml:"salt_mode"`
	SaltField string            `toml:"salt_field"`
	Mode      Mode              `toml:"mode"`
	// Limit is each index partition's throughput limit (nil: none).
	Limit *Limit `toml:"limit"`
	// Ext holds the shard schemes' keys an index takes (keyspace.SchemeKeys: hash, vnodes).
	Ext tomlx.Extensions `toml:"-"`
}

// Limit is [indexes.limit]: each index partition admits Rate partition writes and ReadRate
// partition reads a second, and banks Burst of them (as [keyspace.limits]).
type Limit struct {
	Rate     *float64          `toml:"rate"`
	ReadRate *float64          `toml:"read_rate"`
	Burst    scenario.Duration `toml:"burst"`
}

// Mode is when a write's client hears of it: "sync", once the table and the index have it;
// "async", once the table has it (the default, as DynamoDB's global secondary indexes).
type Mode string

const (
	ModeSync  Mode = "sync"
	ModeAsync Mode = "async"
)

func (m *Mode) DecodeTOML(v any) error { return scenario.DecodeEnum(m, v, ModeSync, ModeAsync) }

var (
	tableKey = scenario.FileKey[[]Table]("indexes", "none",
		"an array of tables: the table's global secondary indexes, each a second layout of its rows: their keys are listed in [`[[indexes]]`](#indexes) above (docs/mitigations.md, \"Global secondary indexes\")")
	streamKey = scenario.StreamKey[string]("index", "none",
		"reads and scans only: the name of an `[[indexes]]` entry the stream's requests go through, described in [`[[streams]]`](#streams) above")
)

// Bounds of the keys.
const (
	maxIndexes    = 20 // every write writes each of them
	maxNameLength = 64 // as a stream's name
	maxRate       = 1e9
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`) // as a stream's name

// The schemes' keys an index takes decode into each entry's Ext, with the same
// file-line-key errors as [keyspace]'s.
func init() {
	for _, k := range keyspace.SchemeKeys() {
		if k.Index {
			tomlx.Extend(reflect.TypeFor[Table](), k.Name, k.Type)
		}
	}
	scenario.RegisterRoutingMechanism(resolveIndexes)
	scenario.RegisterShards(Shards)
	scenario.RegisterLateCheck(checkIndexes)
}

// resolveIndexes reads [[indexes]] and the streams' index, after the streams and before
// their queries, which a stream routed over an index plans over the index's design.
func resolveIndexes(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	xs, _ := tableKey.In(f.Ext)
	if len(xs) > maxIndexes {
		c.Add("indexes", "at most %d indexes are allowed (got %d): every write writes each one", maxIndexes, len(xs))
		return
	}
	names := map[string]int{}
	for i, x := range xs {
		key := fmt.Sprintf("indexes[%d]", i)
		indexName(c, key+".name", x.Name, names, i)
		is := scenario.IndexSpec{Name: x.Name, Layout: layout(c, key, x, f, s)}
		is.Async = c.OneOf(key+".mode", string(x.Mode), string(ModeAsync), string(ModeSync), string(ModeAsync)) == string(ModeAsync)
		resolveLimit(c, key+".limit", x.Limit, &is)
		s.Indexes = append(s.Indexes, is)
	}
	for i := range f.Streams {
		st := &f.Streams[i]
		name, _ := streamKey.In(st.Ext)
		if name == "" {
			continue
		}
		key := fmt.Sprintf("streams[%d].index", i)
		j, ok := names[name]
		switch {
		case len(s.Streams) != len(f.Streams) || i >= len(s.Streams):
			// A replayed stream became two (its reads and its writes), or a stream was
			// refused: the streams no longer line up with the file's.
			c.Add(key, "not in a scenario with a stream that replays a log, or with a stream in error")
		case !ok:
			have := slices.Sorted(maps.Keys(names))
			for k, n := range have {
				have[k] = fmt.Sprintf("%q", n)
			}
			c.Add(key, "no such index %q in [[indexes]] (have %s)", name, strings.Join(have, ", "))
		case s.Streams[i].Op == sim.Write:
			c.Add(key, "applies only to reads and scans: a write writes every index")
		case st.Trace != nil:
			c.Add(key, "not with a stream that replays a log: the log's keys are the table's")
		default:
			s.Streams[i].Index = j + 1
		}
	}
	for j := range s.Indexes {
		queries(c, s, j)
	}
}

// indexName checks index i's name: a reader's name for its shards (by_status/3).
func indexName(c *scenario.Checker, key, name string, names map[string]int, i int) {
	switch {
	case name == "":
		c.Add(key, "required: the index's name, as a query names it")
	case !nameRE.MatchString(name) || len(name) > maxNameLength:
		c.Add(key, "must be at most %d letters, digits, '_', '-' or '.' (got %q)", maxNameLength, name)
	default:
		if _, dup := names[name]; dup {
			c.Add(key, "index %q is declared twice", name)
			return
		}
		names[name] = i
	}
}

// layout resolves index x's keyspace as [keyspace] is resolved, over a copy of the
// variant, and reports its problems under the index's key (indexes[0].shards).
func layout(c *scenario.Checker, key string, x Table, f *scenario.File, s *scenario.Resolved) *scenario.Resolved {
	scheme := x.Scheme
	if scheme == "" {
		scheme = scenario.Scheme(keyspace.DefaultScheme)
	}
	mode := x.SaltMode
	if mode == "" {
		mode = scenario.SaltMode(keyspace.SaltRandom.String())
	}
	k := scenario.Keyspace{Scheme: scheme, Shards: x.Shards, Key: x.Key, Salt: x.Salt, SaltMode: mode, SaltField: x.SaltField,
		Splits: scenario.SplitsHistory, Ext: x.Ext}
	t := scenario.CopyLayout(s)
	if why := keyspace.SchemeKind(scheme).IndexRefusal(); why != "" {
		c.Add(key+".scheme", "an index cannot use scheme = %q %s", string(scheme), why)
		return t
	}
	scenario.ResolveLayout(c, key, k, f, t)
	return t
}

// queries plans, over index j's layout, the queries of the scans routed over it.
func queries(c *scenario.Checker, s *scenario.Resolved, j int) {
	t := s.Indexes[j].Layout
	for i := range t.Streams {
		t.Streams[i].Index = 0
		if i < len(s.Streams) && s.Streams[i].Index != j+1 {
			t.Streams[i].Where = nil // not routed here: no query to plan
		}
		t.Streams[i].Query = nil
	}
	if len(t.Parts) == len(t.Key) && len(t.Parts) > 0 {
		scenario.ResolveQueries(c, t)
	}
}

// resolveLimit reads an index's [indexes.limit].
func resolveLimit(c *scenario.Checker, key string, l *Limit, is *scenario.IndexSpec) {
	if l == nil {
		return
	}
	rate := func(k string, p *float64) float64 {
		if p == nil {
			return 0
		}
		if !(*p > 0) || math.IsInf(*p, 0) || *p > maxRate {
			c.Add(key+"."+k, "must be a number of partitions a second above 0 and at most 1e9 (got %v)", *p)
			return 0
		}
		return *p
	}
	is.WriteRate, is.ReadRate = rate("rate", l.Rate), rate("read_rate", l.ReadRate)
	if l.Rate == nil && l.ReadRate == nil {
		c.Add(key+".rate", "required: each index partition's writes a second (and read_rate its reads)")
	}
	is.Burst = c.Duration(key+".burst", l.Burst, "0s", 0)
}

// checkIndexes refuses what an index cannot be combined with, once the whole variant is
// read: the engine's other shard layouts (a migration, shard splits, a rebalance) would
// share its shard ids, and a write's row lock would be taken on the index's shards too.
func checkIndexes(c *scenario.Checker, _ *scenario.File, s *scenario.Resolved) {
	if len(s.Indexes) == 0 {
		return
	}
	switch {
	case s.Migration != nil:
		c.Add("indexes", "not with a migrate action: the migration's new layout does not carry the index")
	case s.Rebalance != nil:
		c.Add("indexes", "not with an add_nodes action: a rebalance moves the table's shards only")
	case s.Split != nil || s.Limits != nil && s.Limits.SplitForHeat:
		c.Add("indexes", "not with shard splits ([keyspace.split] or split_for_heat): a split would renumber the shards an index's follow")
	}
	for i := range s.Streams {
		if ss := &s.Streams[i]; ss.Op == sim.Write && ss.Lock.Mean > 0 {
			c.Add(fmt.Sprintf("streams[%d].lock", i), "not with [[indexes]]: a write's lock would be taken on each index's shard as well")
		}
		if ss := &s.Streams[i]; ss.Op == sim.Write && ss.Trace != nil {
			c.Add(fmt.Sprintf("streams[%d].trace", i), "not with [[indexes]]: a replayed write does not know the index's key fields")
		}
	}
}

// Shards is the shards of every index of s: the shard ids the engine gives them after the
// table's (scenario.Resolved.OtherShards).
func Shards(s *scenario.Resolved) int {
	n := 0
	for _, x := range s.Indexes {
		if x.Layout != nil {
			n += x.Layout.Shards
		}
	}
	return n
}
