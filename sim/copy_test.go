package sim

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// testMover is a Setting for sim's own tests of the hooks a mechanism that moves shards
// between nodes uses (mechanisms/rebalance, whose own tests hold its figures): node 1
// joins at At, shard 1 is copied there in one batch (a read of 1 ms on node 0 carrying no
// rows, a write of 2 ms on node 1 carrying Rows) and moves when the write ends.
type testMover struct {
	At   Time
	Rows int32
	got  *[]string // what the Copier heard
}

var evTestMover = NewEventKind()

func (g testMover) On(c Core) {
	c.JoinLater(1)
	c.CopyBy(g)
	c.Register(g, evTestMover)
	c.Schedule(g.At, 0, evTestMover)
}
func (testMover) Note() string    { return "" }
func (testMover) Waiter() float64 { return 0 }

func (g testMover) Handle(c Core, now Time, _ int32) {
	c.Join(now, 1)
	c.Copy(now, 1, c.ShardNode(1), 0, Millisecond)
	c.Copy(now, 1, 1, g.Rows, 2*Millisecond)
}

func (g testMover) Copied(c Core, now Time, sh int, rows int32) {
	*g.got = append(*g.got, now.String()+" "+strconv.Itoa(sh)+" "+strconv.Itoa(int(rows)))
	if rows > 0 {
		c.MoveShard(now, sh, 1)
	}
}

// moverModel has two nodes of 2 cores, shard 0 and 1 on node 0 (node 1 joins later), a
// write stream of 100/s over them (modulo 2), and m's mechanisms.
func moverModel(s ...Setting) *Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	return &Model{
		Seed: 1, Duration: 4 * Second, Window: Second,
		Nodes:     []Node{{Cores: 2}, {Cores: 2}},
		ShardNode: []int{0, 0},
		Streams: []Stream{{Name: "w", Op: Write, Cost: 100 * Microsecond,
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 100}}),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(2), false)}},
		Mechanisms: s,
	}
}

// TestJoinCopyMove: a node that joins later has no core time before it joins and its
// cores after (JoinLater, Join); a copy's batches are served where they were sent, their
// CPU in the nodes' busy series, and the Copier hears of each end, the read's after its
// 1 ms and the write's after its 2 ms (the nodes are idle enough that neither queues:
// 100 writes/s of 100 µs); MoveShard points the shard at node 1 and records the move.
func TestJoinCopyMove(t *testing.T) {
	var got []string
	r := Run(moverModel(testMover{At: 1500 * Millisecond, Rows: 7, got: &got}))
	if want := []string{"1.501s 1 0", "1.502s 1 7"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("copies ended %v, want %v", got, want)
	}
	if c := r.NodeCapacity; c[0*2+1] != 0 || c[1*2+1] != Second || c[2*2+1] != 2*Second {
		t.Errorf("node 1's core time by window %v, %v, %v: want 0, 1s, 2s", c[1], c[3], c[5])
	}
	if r.NodeBusy[1*2+1] < 2*Millisecond {
		t.Errorf("node 1 busy %v in window 1, want the copy's write (2ms) at least", r.NodeBusy[1*2+1])
	}
	if sh := r.Shards[1]; sh.Node != 1 || len(sh.Moves) != 1 || sh.Moves[0].At != 1502*Millisecond {
		t.Errorf("shard 1 on node %d, moves %+v: want node 1, moved at 1.502s", sh.Node, sh.Moves)
	}
}

// TestMoverRefusals: a shard placed on a node that joins later is refused when the engine
// is built (a rebalance refuses replicas itself, mechanisms/rebalance's TestRefusals).
func TestMoverRefusals(t *testing.T) {
	var got []string
	for _, c := range []struct {
		name string
		edit func(m *Model)
		want string
	}{
		{"shard on a later node", func(m *Model) { m.ShardNode[1] = 1 }, "shard 1 on node 1, which joins later"},
	} {
		m := moverModel(testMover{At: Second, got: &got})
		c.edit(m)
		func() {
			defer func() {
				if p, _ := recover().(string); !strings.Contains(p, c.want) {
					t.Errorf("%s: panic %q, want %q", c.name, p, c.want)
				}
			}()
			newEngine(m)
		}()
	}
}
