package scenarios

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// Model builds a fresh sim.Model for the variant. Generators and planners keep state, so
// every run needs its own model; two models of one variant give identical runs.
func (v *Variant) Model() *sim.Model {
	s := v.spec
	m := &sim.Model{
		Seed:      s.seed,
		Duration:  s.duration,
		Warmup:    s.warmup,
		Window:    s.window,
		Network:   s.network,
		Nodes:     append([]sim.Node(nil), s.nodes...),
		ShardNode: append([]int(nil), s.shardNode...),
	}
	design := &keyspace.Design{Parts: s.parts, Salt: uint64(max(s.salt, 0)), SaltMode: s.saltMode, SaltField: s.saltField, Clock: int64(s.start)}
	if !design.Salted() {
		design.Salt = 0
	}
	var scheme keyspace.Scheme = s.buildScheme(design)
	if s.copies != nil {
		// The history sample that cut the range splits holds ordinary keys: copies are
		// added after it, as a migration would add them to an existing table.
		keys := make(map[uint64]bool, len(s.copies.keys))
		for _, k := range s.copies.keys {
			keys[k] = true
		}
		design.Copies = &keyspace.Copies{Field: s.copies.field, Keys: keys, Count: s.copies.count}
	}
	if s.split != nil {
		// Every planner routes through the one splitter, so a split moves every stream's keys.
		sp := keyspace.NewSplitter(scheme, s.maxShards)
		m.Splitter, scheme = sp, sp
	}
	s.mitigations(m)
	needed := s.neededFields()
	for i, ss := range s.streams {
		st := sim.Stream{
			Name:    ss.name,
			Op:      ss.op,
			Cost:    ss.cost,
			Service: ss.service,
			Age:     ss.age.build(),
			Fields:  make([]workload.Generator, len(ss.fields)),
			Client:  ss.client,
		}
		if ss.client.Limit != nil {
			l := *ss.client.Limit
			st.Client.Limit = &l
		}
		st.ApplyCost = ss.cost
		if s.applyCost > 0 {
			st.ApplyCost = s.applyCost
		}
		if ss.op != sim.Scan {
			st.KeyFields = keyFieldsOf(s.parts)
		}
		st.UseCache = s.cache != nil && s.cacheStreams[i]
		switch bursty := ss.burst != nil && ss.burst.Factor > 1; {
		case bursty && ss.uniform:
			st.Arrivals = workload.NewBurstUniform(ss.schedule, *ss.burst)
		case bursty:
			st.Arrivals = workload.NewBurstPoisson(ss.schedule, *ss.burst)
		case ss.uniform:
			st.Arrivals = workload.NewUniformArrivals(ss.schedule)
		default:
			st.Arrivals = workload.NewPoisson(ss.schedule)
		}
		for f, fs := range ss.fields {
			// A point request draws its key's raw time field too: the engine names the
			// row by KeyFields (time-ordered generators draw no random numbers).
			if needed[f] || slices.Contains(st.KeyFields, f) {
				st.Fields[f] = fs.build()
			}
		}
		switch {
		case ss.op == sim.Scan && ss.query != nil:
			st.Planner = s.queryPlanner(design, scheme, ss)
		case ss.op == sim.Scan && m.Splitter != nil:
			st.Planner = keyspace.NewScatterPlannerFor(scheme) // the live shards, splits included
		case ss.op == sim.Scan:
			st.Planner = keyspace.NewScatterPlanner(s.shards)
		default:
			st.Planner = keyspace.NewPointPlanner(design, scheme, ss.op == sim.Read)
		}
		m.Streams = append(m.Streams, st)
	}
	return m
}

// mitigations sets the model's mitigation and detection fields; a scenario without them
// leaves them nil and zero. Every pointer is a fresh copy: a model owns what it points to.
func (s *spec) mitigations(m *sim.Model) {
	m.Replicas, m.ReadAny = s.replicas, s.readAny
	if s.cache != nil {
		c := *s.cache
		m.Cache = &c
	}
	if s.limits != nil {
		l := *s.limits
		m.Limits = &l
	}
	if s.split != nil {
		p := *s.split
		m.Split = &p
	}
	for _, a := range s.actions {
		if a.Limit != nil {
			l := *a.Limit
			a.Limit = &l
		}
		m.Actions = append(m.Actions, a)
	}
	if s.detectGiven {
		m.Detect = sim.Detect{TopK: s.detect.TopK, SampleEvery: s.detect.SampleEvery, MaxKeys: s.detect.MaxKeys}
	}
}

// buildScheme builds the variant's shard scheme. The range scheme's split points are the
// quantiles of keys sampled from what the write streams would have written during the
// table's history, so a time-ordered key leaves every new write beyond the last split.
// The sample is drawn from its own random stream of the seed.
func (s *spec) buildScheme(design *keyspace.Design) keyspace.Scheme {
	switch s.scheme {
	case "range":
		return keyspace.NewRange(keyspace.SplitsFromSample(s.historySample(design), s.shards))
	case "directory":
		entries := make([]keyspace.DirEntry, len(s.directory))
		for i, d := range s.directory {
			entries[i] = keyspace.DirEntry{Part: d.part, Value: d.value, Shards: d.shards}
		}
		dir, err := keyspace.NewDirectory(s.shards, entries)
		if err != nil {
			panic("scenarios: unvalidated directory: " + err.Error())
		}
		return dir
	}
	if s.hash == "ring" {
		return keyspace.NewRing(s.shards, s.vnodes)
	}
	return keyspace.NewModulo(s.shards)
}

// historySampleSize is how many history keys the range scheme's splits are cut from:
// 200 per shard, between 10,000 and 500,000.
func historySampleSize(shards int) int { return min(max(200*shards, 10_000), 500_000) }

func (s *spec) historySample(design *keyspace.Design) []keyspace.Key {
	// Weigh the streams by what they would have written during the history (before its
	// first point a schedule keeps the first point's rate); failing that (writes that
	// start at rate 0), by what they write during the run; failing that, every stream.
	var streams []*streamSpec
	var weights []float64
	weigh := []func(*streamSpec) float64{
		func(ss *streamSpec) float64 { return ss.integral(-int64(s.history), 0) },
		func(ss *streamSpec) float64 { return ss.integral(0, int64(s.duration)) },
	}
	for pass := 0; pass < 4 && len(streams) == 0; pass++ {
		for i := range s.streams {
			ss := &s.streams[i]
			if pass < 2 && ss.op != sim.Write {
				continue
			}
			if w := weigh[pass%2](ss); w > 0 {
				streams = append(streams, ss)
				weights = append(weights, w)
			}
		}
	}
	n := historySampleSize(s.shards)
	sample := make([]keyspace.Key, 0, n)
	if len(streams) == 0 {
		return sample
	}
	r := rand.New(rand.NewPCG(s.seed, 0x5e1175)) // the splits' own random stream
	gens := make([][]workload.Generator, len(streams))
	for i, ss := range streams {
		gens[i] = make([]workload.Generator, len(ss.fields))
		for f, fs := range ss.fields {
			gens[i][f] = fs.build()
		}
	}
	pick := workload.NewCategorical(len(weights), weights)
	fields := make([]uint64, len(s.fieldNames))
	var counter uint64
	// Row times are drawn in increasing order, as the writes happened, so that
	// time-ordered ids with counters behave as they would have.
	times := make([]int64, n)
	for i := range times {
		times[i] = -int64(s.history) + int64(r.Float64()*float64(s.history))
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

// integral returns the stream's expected number of requests in [a, b): its schedule's
// integral, with its bursts if it has any.
func (ss *streamSpec) integral(a, b int64) float64 {
	if ss.burst != nil {
		return ss.burst.Integral(ss.schedule, a, b)
	}
	return ss.schedule.Integral(a, b)
}

// queryPlanner builds the planner of a scan with a where clause.
func (s *spec) queryPlanner(design *keyspace.Design, scheme keyspace.Scheme, ss streamSpec) *keyspace.QueryPlanner {
	q := slices.Clone(ss.query)
	off := len(q) - len(s.parts) // 1 when salted
	for i, p := range s.parts {
		if q[off+i].Mode == keyspace.TimeRange {
			q[off+i].Bounds = ss.fields[p.Field].build().(keyspace.TimeBounder)
		}
	}
	p, err := keyspace.NewQueryPlanner(design, scheme, q)
	if err != nil {
		panic("scenarios: unvalidated query: " + err.Error())
	}
	return p
}

// neededFields marks the fields some planner reads; the engine draws no others.
func (s *spec) neededFields() []bool {
	need := make([]bool, len(s.fieldNames))
	for _, p := range s.parts {
		if p.Kind != keyspace.TimeBucketPart {
			need[p.Field] = true
		}
	}
	if s.salt > 1 && s.saltMode == keyspace.SaltHash && s.saltField >= 0 {
		need[s.saltField] = true
	}
	return need
}

func (fs fieldSpec) build() workload.Generator {
	switch fs.gen {
	case "uniform":
		return workload.NewUniform(fs.n)
	case "zipf":
		return workload.NewZipf(fs.n, fs.s, fs.scramble)
	case "hotspot":
		return workload.NewHotspot(fs.n, fs.hotFraction, fs.hotOps)
	case "categorical":
		return workload.NewCategorical(fs.count, fs.weights)
	case "snowflake":
		return workload.NewSnowflake()
	case "sequence":
		return workload.NewSequence()
	case "time":
		return workload.NewTime()
	case "uuid":
		return workload.NewUUID()
	}
	panic(fmt.Sprintf("scenarios: unvalidated generator %q", fs.gen))
}

func (a ageSpec) build() workload.Age {
	switch a.dist {
	case "const":
		if a.value == 0 {
			return nil
		}
		return workload.ConstAge(int64(a.value))
	case "exponential":
		return workload.ExpAge(int64(a.value))
	case "uniform":
		return workload.UniformAge(int64(a.value))
	}
	return nil
}

// KeyDescription says the variant's key design in words, e.g.
// `hash (modulo) of (user_id) over 12 shards`.
func (v *Variant) KeyDescription() string {
	s := v.spec
	var b strings.Builder
	b.WriteString(s.scheme)
	if s.scheme == "hash" {
		fmt.Fprintf(&b, " (%s)", s.hash)
	}
	b.WriteString(" of (")
	if s.salt > 1 {
		fmt.Fprintf(&b, "salt[%d, %s], ", s.salt, []string{"random", "round_robin", "hash"}[s.saltMode])
	}
	b.WriteString(strings.Join(s.key, ", "))
	fmt.Fprintf(&b, ") over %d shards on %d nodes", s.shards, len(s.nodes))
	return b.String()
}
