package compile

import (
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/trace"
)

// AnalysisFile is the scenario that a key design given on analyze's command line stands
// for: one table whose fields are the log's key parts (names) plus ts, the record's time
// (for hour(ts) and the like), and the keyspace. Resolving it checks the design with the
// same rules as a scenario file; its problems name keyspace.* keys.
func AnalysisFile(names, key []string, scheme string, shards, salt int) scenario.File {
	f := scenario.Defaults()
	f.Name, f.Duration = "analyze", scenario.Dur("1s")
	one := 1
	f.Cluster.Nodes = &one
	f.Table.Fields = map[string]scenario.Field{}
	for _, n := range names {
		f.Table.Fields[n] = scenario.Field{Gen: "uuid"}
	}
	if !slices.Contains(names, "ts") {
		f.Table.Fields["ts"] = scenario.Field{Gen: "time"}
	}
	f.Keyspace.Scheme, f.Keyspace.Shards, f.Keyspace.Key, f.Keyspace.Salt = scenario.Scheme(scheme), &shards, key, &salt
	rate := 1.0
	f.Streams = []scenario.Stream{{Name: "log", Op: scenario.OpWrite, Rate: &rate, Cost: scenario.Dur("1ms")}}
	return f
}

// TraceDesign builds the planners a simulation of s would use (the same key design and
// shard scheme), for routing the records of a log whose key parts are names. A range
// scheme's splits are the quantiles of the keys of sample (field vectors in s's field
// order, with their times, as trace.Sample draws them), not of a history.
//
// orders, when given, are the text orders trace.Sample set on the design it sampled with
// (its Orders), so that the splits are shown as the log's text (Design.Splits).
func TraceDesign(s *scenario.Resolved, names []string, sample [][]uint64, times []int64, orders ...trace.TextOrder) *trace.Design {
	design := designOf(s)
	sampled := func() []keyspace.Key {
		r := rand.New(rand.NewPCG(s.Seed, 0x5e1175))
		keys := make([]keyspace.Key, len(sample))
		var counter uint64
		for i, f := range sample {
			design.KeyInto(&keys[i], f, times[i], design.WriteSalt(r, f, &counter))
		}
		return keys
	}
	// Every key part that holds a log's key part is the log's text: under a scheme that
	// routes by slots, each carries its record's slot.
	var text uint8
	for i, p := range s.Parts {
		if p.Kind == keyspace.FieldPart && slices.Contains(names, s.FieldNames[p.Field]) {
			text |= 1 << i
		}
	}
	if design.Salted() {
		text <<= 1
	}
	scheme := schemeOf(s, schemeConfig(s, sampled, text))
	d := &trace.Design{Shards: s.Shards, NFields: len(s.FieldNames), TimeField: -1, Order: keepsOrder(s), Slots: s.Scheme.Slots()}
	for _, n := range names {
		d.PartField = append(d.PartField, slices.Index(s.FieldNames, n))
	}
	if r, ok := scheme.(*keyspace.Range); ok && sample != nil {
		d.Splits = splitTexts(r, design, d, orders)
	}
	if !slices.Contains(names, "ts") {
		d.TimeField = slices.Index(s.FieldNames, "ts")
	}
	d.Write = keyspace.NewPointPlanner(design, scheme, false)
	d.Read = keyspace.NewPointPlanner(design, scheme, true)
	return d
}

// splitTexts writes the split points of r, part by part: a plain field that holds a log
// key part as the log's text (its order value decoded), any other part (salt, hash(f, N),
// a time bucket) as its number.
func splitTexts(r *keyspace.Range, design *keyspace.Design, d *trace.Design, orders []trace.TextOrder) [][]string {
	show := &trace.Design{Orders: orders}
	var out [][]string
	for _, k := range r.Splits() {
		var row []string
		for j, v := range k.Parts() {
			pi := j
			if design.Salted() {
				pi--
			}
			text := strconv.FormatUint(v, 10)
			if pi >= 0 && pi < len(design.Parts) && design.Parts[pi].Kind == keyspace.FieldPart {
				if lp := slices.Index(d.PartField, design.Parts[pi].Field); lp >= 0 {
					text = show.SplitText(lp, v)
				}
			}
			row = append(row, text)
		}
		out = append(out, row)
	}
	return out
}

// keepsOrder says whether the text key parts of a log keep their byte order under s's
// scheme: under range they do (docs/keys.md), under hash and directory a text part is
// hashed whole.
func keepsOrder(s *scenario.Resolved) bool { return s.Scheme.Ordered() }

// textParts is the mask of the key parts (salt included) that hold a field some stream
// replays from a log: under redis_cluster such a part carries its key text's slot.
func textParts(s *scenario.Resolved) uint8 {
	var mask uint8
	off := 0
	if keyspace.Salted(s.Salt) {
		off = 1
	}
	for i, p := range s.Parts {
		if p.Kind != keyspace.FieldPart {
			continue
		}
		for j := range s.Streams {
			if t := s.Streams[j].Trace; t != nil && slices.Contains(t.PartFields, p.Field) {
				mask |= 1 << (i + off)
			}
		}
	}
	return mask
}

// designOf is the key design of s.
func designOf(s *scenario.Resolved) *keyspace.Design {
	design := &keyspace.Design{Parts: s.Parts, Salt: uint64(max(s.Salt, 0)), SaltMode: s.SaltMode, SaltField: s.SaltField, Clock: int64(s.Start)}
	if !design.Salted() {
		design.Salt = 0
	}
	return design
}

// replay makes stream st take its arrivals and the fields its log's keys hold from the
// log (ss.Trace): the records of st's operation, in the log's time divided by its speed.
func replay(st *sim.Stream, s *scenario.Resolved, ss scenario.StreamSpec, needed []bool) {
	t := ss.Trace
	op := trace.Write
	if ss.Op == sim.Read {
		op = trace.Read
	}
	src := t.Source(op, t.Speed, len(t.PartFields), keepsOrder(s))
	st.Arrivals = src
	src.Slots = s.Scheme.Slots()
	// The counts read when the scenario was checked (cached): a log that ends with fewer
	// records was cut short while the run read it (trace.Source.Err).
	if rates, err := t.Rates(); err == nil {
		counts := rates.Writes
		if op == trace.Read {
			counts = rates.Reads
		}
		for _, n := range counts {
			src.Want += n
		}
	}
	first := true
	// The engine draws fields in field order: the first fed field advances the source.
	order := make([]int, len(t.PartFields))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return t.PartFields[a] - t.PartFields[b] })
	for _, i := range order {
		f := t.PartFields[i]
		if needed[f] || slices.Contains(st.KeyFields, f) {
			st.Fields[f] = src.Field(i, first)
			first = false
		}
	}
}

// traceSample is the sample a range scheme's splits are cut from when the variant
// replays a log: the keys of the first replayed log's first records (its writes and
// reads; trace.Sample), the keys the cluster held when the log began, so that the shards
// start even over them and a key that grows with time sends its new keys past the last
// split. nil when no stream replays a log.
func traceSample(s *scenario.Resolved, design *keyspace.Design) []keyspace.Key {
	var t *scenario.TraceSpec
	for i := range s.Streams {
		if t = s.Streams[i].Trace; t != nil {
			break
		}
	}
	if t == nil {
		return nil
	}
	d := &trace.Design{NFields: len(s.FieldNames), PartField: t.PartFields, TimeField: -1, Order: keepsOrder(s)}
	fields, times, err := t.Sample(d, TraceSplitSample(s.Shards))
	if err != nil || len(fields) == 0 {
		return nil
	}
	r := rand.New(rand.NewPCG(s.Seed, 0x5e1175))
	keys := make([]keyspace.Key, len(fields))
	var counter uint64
	for i, f := range fields {
		at := int64(float64(times[i]) / t.Speed)
		design.KeyInto(&keys[i], f, at, design.WriteSalt(r, f, &counter))
	}
	return keys
}

// TraceSplitSample is the most records of a log that a range scheme's splits are cut
// from (trace.Sample's n), in a replay as in analyze: as many as from a history.
func TraceSplitSample(shards int) int { return historySampleSize(shards) }

// explainTrace makes a replayed stream draw its fields from their declared generators, as
// explain samples requests without reading the log: its rate is the log's (the stream's
// schedule), its keys the table's generators'.
func explainTrace(st *sim.Stream, ss *scenario.StreamSpec) {
	if ss.Trace == nil {
		return
	}
	for f, g := range st.Fields {
		if g != nil {
			st.Fields[f] = generator(ss.Fields[f])
		}
	}
}
