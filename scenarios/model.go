package scenarios

import (
	"fmt"
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
	design := &keyspace.Design{Parts: s.parts, Salt: uint64(max(s.salt, 0)), SaltMode: s.saltMode, SaltField: s.saltField}
	if !design.Salted() {
		design.Salt = 0
	}
	var scheme keyspace.Scheme
	switch s.hash {
	case "ring":
		scheme = keyspace.NewRing(s.shards, s.vnodes)
	default:
		scheme = keyspace.NewModulo(s.shards)
	}
	needed := s.neededFields()
	for _, ss := range s.streams {
		st := sim.Stream{
			Name:    ss.name,
			Op:      ss.op,
			Cost:    ss.cost,
			Service: ss.service,
			Age:     ss.age.build(),
			Fields:  make([]workload.Generator, len(ss.fields)),
		}
		if ss.uniform {
			st.Arrivals = workload.NewUniformArrivals(ss.schedule)
		} else {
			st.Arrivals = workload.NewPoisson(ss.schedule)
		}
		for i, fs := range ss.fields {
			if needed[i] {
				st.Fields[i] = fs.build()
			}
		}
		switch ss.op {
		case sim.Scan:
			st.Planner = keyspace.NewScatterPlanner(s.shards)
		default:
			st.Planner = keyspace.NewPointPlanner(design, scheme, ss.op == sim.Read)
		}
		m.Streams = append(m.Streams, st)
	}
	return m
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
