package sim

import (
	"reflect"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// TestArrivalsAheadSameResult runs one model twice, once drawing every arrival on the
// engine's goroutine and once with producers drawing them ahead (ahead.go), and wants
// the two Results equal in every field. The streams cover the four arrival processes a
// producer takes over, a rising and a stepped schedule, and one stream too short to get a
// producer (40 arrivals); 1.5 s at these rates gives the others 7 to 45 chunks each
// after the first aheadAfter arrivals, and a queue limit makes some requests fail.
func TestArrivalsAheadSameResult(t *testing.T) {
	const shards = 12
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	scheme := keyspace.NewModulo(shards)
	ramp := workload.Schedule{{At: 0, Rate: 20000}, {At: 1e9, Rate: 60000}, {At: 1e9, Rate: 5000}, {At: 1.2e9, Rate: 50000}}
	burst := workload.Burst{Every: 100 * int64(Millisecond), Width: 10 * int64(Millisecond), Factor: 4}
	model := func() *Model {
		mk := func(name string, op Op, a workload.Arrivals) Stream {
			return Stream{Name: name, Op: op, Cost: 100 * Microsecond, Arrivals: a,
				Fields:  []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner: keyspace.NewPointPlanner(d, scheme, op == Read)}
		}
		m := &Model{
			Seed: 7, Duration: 1500 * Millisecond, Warmup: 200 * Millisecond, Window: 100 * Millisecond, Network: Millisecond,
			Nodes: make([]Node, shards), ShardNode: make([]int, shards),
			Streams: []Stream{
				mk("poisson", Write, workload.NewPoisson(ramp)),
				mk("uniform", Read, workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 30000}})),
				mk("burst", Read, workload.NewBurstPoisson(workload.Schedule{{At: 0, Rate: 20000}}, burst)),
				mk("burst-uniform", Write, workload.NewBurstUniform(workload.Schedule{{At: 0, Rate: 15000}}, burst)),
				mk("rare", Read, workload.NewPoisson(workload.Schedule{{At: 0, Rate: 30}})),
			},
		}
		for i := range m.Nodes {
			m.Nodes[i] = Node{Cores: 1, QueueLimit: 200}
			m.ShardNode[i] = i
		}
		return m
	}
	run := func(ahead bool) (*Result, []bool) {
		defer func(on func() bool) { aheadOn = on }(aheadOn)
		aheadOn = func() bool { return ahead }
		e := newEngine(model())
		e.run()
		fed := make([]bool, len(e.streams))
		for i := range e.streams {
			fed[i] = e.streams[i].feed != nil
		}
		return e.res, fed
	}
	inline, fedInline := run(false)
	ahead, fed := run(true)
	if want := []bool{true, true, true, true, false}; !reflect.DeepEqual(fed, want) || reflect.DeepEqual(fedInline, want) {
		t.Fatalf("streams with a producer: %v drawing ahead, %v inline; want %v and none", fed, fedInline, want)
	}
	var rejected int64
	for _, s := range inline.Streams {
		rejected += s.Rejected
	}
	if rejected == 0 || inline.Streams[0].Completed < 20000 {
		t.Fatalf("%d rejected, %d completed: the model should reject some requests and complete many", rejected, inline.Streams[0].Completed)
	}
	if !reflect.DeepEqual(inline, ahead) {
		for i := range inline.Streams {
			a, b := inline.Streams[i], ahead.Streams[i]
			t.Logf("%s: offered %d/%d completed %d/%d latency sum %v/%v", a.Name, a.Offered, b.Offered, a.Completed, b.Completed, a.LatencySum, b.LatencySum)
		}
		t.Fatal("the results differ when arrivals are drawn ahead")
	}
}
