package sim

// This file holds the smallest stand-ins for mechanisms outside sim that sim's own tests of
// the Core's hooks use (sim's own tests cannot import them). The mechanisms' closed forms
// are tested in their folders, against the mechanisms themselves: the operator's actions
// in mechanisms/operator, the followers in mechanisms/replicas.

// limitChange is a test's change of stream Stream's client limit at At to Limit (nil:
// none).
type limitChange struct {
	At     Time
	Stream int
	Limit  *Limit
}

// limitChanges is a test's changes of client limits: a Setting that applies them at their
// times through Core.SetClientLimit, the hook the operator's client-limit action calls.
// Its events are of the kind evLimitChange.
type limitChanges []limitChange

var evLimitChange = NewEventKind()

func (limitChanges) Note() string    { return "" }
func (limitChanges) Waiter() float64 { return 0 }
func (limitChanges) Couples() string { return "a client limit changes during the run" }

func (ls limitChanges) Init(c Core) {
	for _, l := range ls {
		c.MayLimit(l.Stream, l.Limit != nil && l.Limit.Queue)
	}
}

func (ls limitChanges) On(c Core) {
	c.Register(ls, evLimitChange)
	for i, l := range ls {
		if l.At < c.Duration() {
			c.Schedule(l.At, int32(i), evLimitChange)
		}
	}
}

func (ls limitChanges) Handle(c Core, now Time, i int32) {
	c.SetClientLimit(now, ls[i].Stream, ls[i].Limit)
}

// followers is a test's followers: n per shard, with reads from any copy when any, each
// write's apply at cost (0: its stream's cost): a Setting that calls the hooks
// mechanisms/replicas' Replicas calls (Core.SetReplicas, Slotted, WatchWrites, Follow,
// RouteReads), for the tests of what the engine does with them.
type followers struct {
	n    int
	any  bool
	cost Time
}

func (followers) Note() string    { return "" }
func (followers) Waiter() float64 { return 0 }
func (followers) Couples() string { return "replicas couple the nodes" }

func (f followers) On(c Core) {
	c.SetReplicas(f.n)
	for i := range c.Streams() {
		if w := c.Op(i) == Write; (w && f.n > 0) || (!w && f.any) {
			c.Slotted(i)
		}
	}
	if f.n > 0 {
		c.WatchWrites(f)
	}
	if f.any {
		c.RouteReads(f)
	}
}

func (f followers) Wrote(c Core, now Time, i int, sh, parts int32) {
	leader := c.ShardNode(int(sh))
	for k := 1; k <= f.n; k++ {
		c.Follow(now, i, sh, (leader+k)%c.Nodes(), parts, f.cost)
	}
}

func (f followers) ReadNode(c Core, leader int32) int32 {
	if k := c.Aux().IntN(f.n + 1); k > 0 {
		leader = int32((int(leader) + k) % c.Nodes())
	}
	return leader
}
