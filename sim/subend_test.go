package sim_test

import (
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// delayEnd is a SubEnd that holds the completion of every write for d (its own event,
// by subrequest slot), and lets reads complete at once.
type delayEnd struct {
	d    sim.Time
	kind sim.EvKind
	held int
	// released, if not nil, is when it last let each slot's write go (Core.Finish), for
	// lastEnd.
	released map[int32]sim.Time
}

func (h *delayEnd) On(c sim.Core) { c.EndSubs(h); c.Register(h, h.kind) }
func (*delayEnd) Note() string    { return "" }
func (*delayEnd) Waiter() float64 { return 0 }
func (h *delayEnd) Handle(c sim.Core, at sim.Time, si int32) {
	h.held--
	if h.released != nil {
		h.released[si] = at
	}
	c.Finish(at, si)
}
func (h *delayEnd) End(c sim.Core, now sim.Time, si int32) bool {
	if !c.SubWrite(si) || c.SubNode(si) != 0 {
		return true
	}
	h.held++
	c.Schedule(now+h.d, si, h.kind)
	return false
}

var endKinds = [2]sim.EvKind{sim.NewEventKind(), sim.NewEventKind()}

// TestSubEndChain: two SubEnd hooks in a row each hold a write's completion on node 0 (1 ms
// and then 2 ms): a write completes after its service and both holds, the second hook
// hearing of it only when the first lets it go (Core.Finish), so each write's latency is
// its 0.1 ms of service plus 3 ms; a read completes at the end of its service. Every request completes once, and no hold is left after the run.
func TestSubEndChain(t *testing.T) {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	stream := func(name string, op sim.Op, shards int) sim.Stream {
		return sim.Stream{
			Name: name, Op: op, Cost: 100 * sim.Microsecond, Service: sim.Service{Kind: sim.Constant},
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 500}}),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(shards), false),
		}
	}
	first, second := &delayEnd{d: sim.Millisecond, kind: endKinds[0]}, &delayEnd{d: 2 * sim.Millisecond, kind: endKinds[1]}
	m := &sim.Model{
		Seed: 1, Duration: 3 * sim.Second, Window: sim.Second,
		Nodes: []sim.Node{{Cores: 64}, {Cores: 64}}, ShardNode: []int{0},
		Streams:    []sim.Stream{stream("w", sim.Write, 1), stream("r", sim.Read, 1)},
		Mechanisms: []sim.Setting{first, second},
	}
	r := sim.Run(m)
	w, rd := &r.Streams[0], &r.Streams[1]
	if w.Completed != w.Offered || rd.Completed != rd.Offered || w.Completed < 1000 {
		t.Fatalf("writes %d of %d completed, reads %d of %d: want all", w.Completed, w.Offered, rd.Completed, rd.Offered)
	}
	want := 100*sim.Microsecond + 3*sim.Millisecond
	if mean := sim.Time(w.LatencySum / float64(w.Completed)); mean != want || w.LatencyMax != want {
		t.Errorf("writes: mean latency %v, longest %v, want %v each (service and both holds)", mean, w.LatencyMax, want)
	}
	if rd.LatencyMax != 100*sim.Microsecond {
		t.Errorf("reads: longest latency %v, want their service of 100µs", rd.LatencyMax)
	}
	if first.held != 0 || second.held != 0 {
		t.Errorf("holds left after the run: %d and %d, want none", first.held, second.held)
	}
}

// lastEnd is a SubEnd put last (Core.EndSubsLast) that counts the writes on node 0 it
// hears of, and those it hears of other than as hold lets them go.
type lastEnd struct {
	hold        *delayEnd
	seen, early int
}

func (h *lastEnd) On(c sim.Core) { c.EndSubsLast(h) }
func (*lastEnd) Note() string    { return "" }
func (*lastEnd) Waiter() float64 { return 0 }
func (h *lastEnd) End(c sim.Core, now sim.Time, si int32) bool {
	if !c.SubWrite(si) || c.SubNode(si) != 0 {
		return true
	}
	h.seen++
	if at, ok := h.hold.released[si]; !ok || at != now {
		h.early++
	}
	return true
}

// TestSubEndLast: a hook put with EndSubsLast hears of a write's completion after a hook
// put with EndSubs has held it and let it go, though its mechanism is turned on first.
func TestSubEndLast(t *testing.T) {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	hold := &delayEnd{d: sim.Millisecond, kind: endKinds[0], released: map[int32]sim.Time{}}
	last := &lastEnd{hold: hold}
	m := &sim.Model{
		Seed: 1, Duration: 3 * sim.Second, Window: sim.Second,
		Nodes: []sim.Node{{Cores: 64}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "w", Op: sim.Write, Cost: 100 * sim.Microsecond, Service: sim.Service{Kind: sim.Constant},
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 500}}),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
		}},
		Mechanisms: []sim.Setting{last, hold},
	}
	r := sim.Run(m)
	if w := r.Streams[0]; w.Completed < 1000 || int64(last.seen) != w.Completed {
		t.Fatalf("%d writes completed, the last hook heard of %d: want the same, over 1,000", w.Completed, last.seen)
	}
	if last.early != 0 {
		t.Errorf("the last hook heard of %d of %d writes other than as the hold let them go: want none", last.early, last.seen)
	}
}
