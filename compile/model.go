package compile

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// Model builds a fresh sim.Model from a validated scenario. Generators and planners keep
// state, so every run needs its own model; two models of one spec give identical runs. It
// builds the scenario's routing too: a variant that runs more than once (or is estimated
// first) builds its Routing once and takes each model from it (Routing.Model).
func Model(s *scenario.Resolved) *sim.Model { return NewRouting(s).Model() }

// buildModel builds a fresh model of r's scenario through r; r's run parts are built.
func buildModel(r *Routing) *sim.Model {
	s := r.s
	m := &sim.Model{
		Seed:      s.Seed,
		Duration:  s.Duration,
		Warmup:    s.Warmup,
		Window:    s.Window,
		Detail:    s.Detail,
		Network:   s.Network,
		Nodes:     append([]sim.Node(nil), s.Nodes...),
		ShardNode: Placement(s),
	}
	rt := r.table.forRun(s)
	mitigations(s, m)
	for i, ss := range s.Streams {
		st := rt.stream(s, i)
		st.Service, st.Client = ss.Service, ss.Client
		if ss.Client.Limit != nil {
			l := *ss.Client.Limit
			st.Client.Limit = &l
		}
		st.Clients, st.Think = ss.Clients, ss.Think
		st.Arrivals = arrivals(ss)
		if ss.Trace != nil {
			replay(&st, s, ss, rt.needed)
		}
		m.Streams = append(m.Streams, st)
	}
	// The model parts' settings, built in their order and placed by their ranks around
	// the recipe mechanisms' (settings are values no run changes).
	b := &modelBuild{r: r, rt: rt, m: m}
	type placed struct {
		rank int
		x    sim.Setting
	}
	var made []placed
	for _, p := range scenario.ModelParts() {
		if x := p.Make(b); x != nil {
			made = append(made, placed{p.Rank, x})
		}
	}
	slices.SortStableFunc(made, func(a, b placed) int { return cmp.Compare(a.rank, b.rank) })
	for _, x := range made {
		if x.rank < 0 {
			m.Mechanisms = append(m.Mechanisms, x.x)
		}
	}
	m.Mechanisms = append(m.Mechanisms, s.Mechanisms...)
	for _, x := range made {
		if x.rank >= 0 {
			m.Mechanisms = append(m.Mechanisms, x.x)
		}
	}
	return m
}

// router is how a variant routes its requests: its key design (copies included), its
// shard scheme (behind the splitter when shards split) and the fields its planners read.
// The model's streams and the work estimate (EstimateWork) plan through it. The router a
// Routing keeps has no splitter; forRun gives each run its own.
type router struct {
	design   *keyspace.Design
	scheme   keyspace.Scheme
	splitter *keyspace.Splitter // nil: shards do not split
	needed   []bool             // the fields some planner reads
}

func newRouter(s *scenario.Resolved) *router {
	rt := &router{design: designOf(s)}
	rt.scheme = buildScheme(s, rt.design)
	if s.Copies != nil {
		// The history sample that cut the range splits holds ordinary keys: copies are
		// added after it, as a migration would add them to an existing table.
		keys := make(map[uint64]bool, len(s.Copies.Keys))
		for _, k := range s.Copies.Keys {
			keys[k] = true
		}
		rt.design.Copies = &keyspace.Copies{Field: s.Copies.Field, Keys: keys, Count: s.Copies.Count}
	}
	rt.needed = neededFields(s)
	for _, p := range scenario.ModelParts() {
		if p.Layouts != nil {
			// The other layouts plan from the same field values (a write writes each
			// index's entry, a migration's new layout plans its copy): draw what every
			// key needs.
			for _, t := range p.Layouts(s) {
				for f, n := range neededFields(t) {
					rt.needed[f] = rt.needed[f] || n
				}
			}
		}
		if p.Needs != nil {
			p.Needs(s, rt.needed)
		}
	}
	return rt
}

// stream builds what stream i's requests are, without their arrivals: its operation and
// costs, its rows' ages, the generators of the fields it draws, and its planner.
func (rt *router) stream(s *scenario.Resolved, i int) sim.Stream {
	ss := &s.Streams[i]
	st := sim.Stream{
		Name:   ss.Name,
		Op:     ss.Op,
		Cost:   ss.Cost,
		Age:    age(ss.Age),
		Fields: make([]workload.Generator, len(ss.Fields)),
	}
	if ss.Op != sim.Scan {
		st.KeyFields = scenario.KeyFieldsOf(s.Parts)
	}
	for f, fs := range ss.Fields {
		// A point request draws its key's raw time field too: the engine names the
		// row by KeyFields (time-ordered generators draw no random numbers).
		if rt.needed[f] || slices.Contains(st.KeyFields, f) {
			st.Fields[f] = generator(fs)
		}
	}
	st.Planner = rt.planner(s, i)
	if ss.Rows {
		st.RowCost, st.RowsModeled = ss.RowCost, true
	}
	return st
}

// planner builds stream i's planner, with its rows' model.
func (rt *router) planner(s *scenario.Resolved, i int) sim.Planner {
	ss := &s.Streams[i]
	var p sim.Planner
	switch {
	case ss.Op == sim.Scan && ss.Query != nil:
		p = queryPlanner(s, rt.design, rt.scheme, *ss)
	case ss.Op == sim.Scan && rt.splitter != nil:
		p = keyspace.NewScatterPlannerFor(rt.scheme) // the live shards, splits included
	case ss.Op == sim.Scan:
		p = keyspace.NewScatterPlanner(s.Shards)
	default:
		p = keyspace.NewPointPlanner(rt.design, rt.scheme, ss.Op == sim.Read)
	}
	if ss.Rows {
		rows := RowModel(s, ss)
		switch q := p.(type) {
		case *keyspace.QueryPlanner:
			q.SetRows(rows)
		case *keyspace.ScatterPlanner:
			q.SetRows(rows)
		}
	}
	return p
}

// arrivals is a stream's arrival process (nil for a closed loop, whose clients issue the
// requests: sim.Stream.Clients).
func arrivals(ss scenario.StreamSpec) workload.Arrivals {
	switch bursty := ss.Burst != nil && ss.Burst.Factor > 1; {
	case ss.Clients > 0:
		return nil
	case bursty && ss.Uniform:
		return workload.NewBurstUniform(ss.Schedule, *ss.Burst)
	case bursty:
		return workload.NewBurstPoisson(ss.Schedule, *ss.Burst)
	case ss.Uniform:
		return workload.NewUniformArrivals(ss.Schedule)
	}
	return workload.NewPoisson(ss.Schedule)
}

// mitigations sets the model's mitigation and detection fields; a scenario without them
// leaves them nil and zero. Every pointer is a fresh copy: a model owns what it points to.
func mitigations(s *scenario.Resolved, m *sim.Model) {
	if s.DetectGiven {
		m.Detect = s.Detect
	}
}

// buildScheme builds the variant's shard scheme. The range scheme's split points are the
// quantiles of keys sampled from what the write streams would have written during the
// table's history, so a time-ordered key leaves every new write beyond the last split.
// The sample is drawn from its own random stream of the seed.
func buildScheme(s *scenario.Resolved, design *keyspace.Design) keyspace.Scheme {
	schemesBuilt.Add(1)
	return schemeOf(s, schemeConfig(s, func() []keyspace.Key { return historySample(s, design) }, textParts(s)))
}

// schemeConfig is what s's scheme is built from; sample gives the keys a range scheme's
// splits are cut from, text the key parts that hold a log's key text.
func schemeConfig(s *scenario.Resolved, sample func() []keyspace.Key, text uint8) keyspace.SchemeConfig {
	return keyspace.SchemeConfig{Shards: s.Shards, Options: s.SchemeOptions, Sample: sample,
		TextParts: text}
}

// schemeOf builds the scheme of a validated scenario.
func schemeOf(s *scenario.Resolved, c keyspace.SchemeConfig) keyspace.Scheme {
	scheme, err := s.Scheme.Build(c)
	if err != nil {
		panic("compile: unvalidated " + string(s.Scheme) + " scheme: " + err.Error())
	}
	return scheme
}

// historySampleSize is how many history keys the range scheme's splits are cut from:
// 200 per shard, between 10,000 and 500,000.
func historySampleSize(shards int) int { return min(max(200*shards, 10_000), 500_000) }

func historySample(s *scenario.Resolved, design *keyspace.Design) []keyspace.Key {
	if sample := traceSample(s, design); sample != nil {
		return sample
	}
	// Weigh the streams by what they would have written during the history (before its
	// first point a schedule keeps the first point's rate); failing that (writes that
	// start at rate 0), by what they write during the run; failing that, every stream.
	var streams []*scenario.StreamSpec
	var weights []float64
	weigh := []func(*scenario.StreamSpec) float64{
		func(ss *scenario.StreamSpec) float64 { return ss.Integral(-int64(s.History), 0) },
		func(ss *scenario.StreamSpec) float64 { return ss.Integral(0, int64(s.Duration)) },
	}
	for pass := 0; pass < 4 && len(streams) == 0; pass++ {
		for i := range s.Streams {
			ss := &s.Streams[i]
			if pass < 2 && ss.Op != sim.Write {
				continue
			}
			if w := weigh[pass%2](ss); w > 0 {
				streams = append(streams, ss)
				weights = append(weights, w)
			}
		}
	}
	n := historySampleSize(s.Shards)
	sample := make([]keyspace.Key, 0, n)
	if len(streams) == 0 {
		return sample
	}
	r := rand.New(rand.NewPCG(s.Seed, 0x5e1175)) // the splits' own random stream
	gens := make([][]workload.Generator, len(streams))
	for i, ss := range streams {
		gens[i] = make([]workload.Generator, len(ss.Fields))
		for f, fs := range ss.Fields {
			gens[i][f] = generator(fs)
		}
	}
	pick := workload.NewCategorical(len(weights), weights)
	fields := make([]uint64, len(s.FieldNames))
	var counter uint64
	// Row times are drawn in increasing order, as the writes happened, so that
	// time-ordered ids with counters behave as they would have.
	times := make([]int64, n)
	for i := range times {
		times[i] = -int64(s.History) + int64(r.Float64()*float64(s.History))
	}
	slices.Sort(times)
	for _, t := range times {
		i := pick.Next(r, t)
		for f, g := range gens[i] {
			fields[f] = g.Next(r, t)
		}
		var k keyspace.Key
		design.KeyInto(&k, fields, t, design.WriteSalt(r, fields, &counter))
		sample = append(sample, k)
	}
	return sample
}

// queryPlanner builds the planner of a scan with a where clause.
func queryPlanner(s *scenario.Resolved, design *keyspace.Design, scheme keyspace.Scheme, ss scenario.StreamSpec) *keyspace.QueryPlanner {
	q := slices.Clone(ss.Query)
	off := len(q) - len(s.Parts) // 1 when salted
	for i, p := range s.Parts {
		if q[off+i].Mode == keyspace.TimeRange {
			q[off+i].Bounds = generator(ss.Fields[p.Field]).(keyspace.TimeBounder)
		}
	}
	p, err := keyspace.NewQueryPlanner(design, scheme, q)
	if err != nil {
		panic("compile: unvalidated query: " + err.Error())
	}
	return p
}

// neededFields marks the fields some planner reads; the engine draws no others.
func neededFields(s *scenario.Resolved) []bool {
	need := make([]bool, len(s.FieldNames))
	for _, p := range s.Parts {
		if p.Kind != keyspace.TimeBucketPart {
			need[p.Field] = true
		}
	}
	if keyspace.Salted(s.Salt) && s.SaltMode == keyspace.SaltHash && s.SaltField >= 0 {
		need[s.SaltField] = true
	}
	return need
}

func generator(fs scenario.FieldSpec) workload.Generator {
	switch fs.Gen {
	case "uniform":
		return workload.NewUniform(fs.N)
	case "zipf":
		return workload.NewZipf(fs.N, fs.S, fs.Scramble)
	case "hotspot":
		return workload.NewHotspot(fs.N, fs.HotFraction, fs.HotOps)
	case "categorical":
		return workload.NewCategorical(fs.Count, fs.Weights)
	case "snowflake":
		return workload.NewSnowflake()
	case "sequence":
		return workload.NewSequence()
	case "time":
		return workload.NewTime()
	case "uuid", "uuidv4":
		return workload.NewUUID()
	case "uuidv7", "ulid":
		return workload.NewUUIDv7()
	case "ksuid":
		return workload.NewKSUID()
	}
	panic(fmt.Sprintf("scenarios: unvalidated generator %q", fs.Gen))
}

func age(a scenario.AgeSpec) workload.Age {
	switch a.Dist {
	case "const":
		if a.Value == 0 {
			return nil
		}
		return workload.ConstAge(int64(a.Value))
	case "exponential":
		return workload.ExpAge(int64(a.Value))
	case "uniform":
		return workload.UniformAge(int64(a.Value))
	}
	return nil
}

// Placement returns the node of every shard: round-robin, a fixed permutation of the
// round-robin placement derived from the seed (random), or the scenario's explicit list.
func Placement(s *scenario.Resolved) []int {
	nodes := len(s.Nodes)
	out := make([]int, s.Shards)
	switch s.Placement {
	case scenario.PlaceExplicit:
		copy(out, s.ShardNodes)
	case scenario.PlaceRandom:
		// Balanced like round_robin but with no visible pattern.
		for i := range out {
			out[i] = i % nodes
		}
		perm := keyspace.Hash64(s.Seed)
		for i := len(out) - 1; i > 0; i-- {
			perm = keyspace.Hash64(perm + uint64(i))
			j := int(perm % uint64(i+1))
			out[i], out[j] = out[j], out[i]
		}
	default:
		for i := range out {
			out[i] = i % nodes
		}
	}
	return out
}
