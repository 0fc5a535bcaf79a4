package sim

// This file holds stand-ins for the mechanisms outside sim that sim's own tests use.

// action is a test's operator action: at At, node Node gets Cores cores (0: unchanged), or,
// with SetLimit, stream Stream's client limit becomes Limit, a network delay later; Text
// is noted in the timeline.
type action struct {
	At       Time
	Node     int
	Cores    int
	SetLimit bool
	Stream   int
	Limit    *Limit
	Text     string
}

// acts is a test's operator actions: a Setting that applies them at their times through
// the Core, as mechanisms/operator's Actions does (sim's own tests cannot import it). Its
// events are of the kind evActs.
type acts []action

var evActs = NewEventKind()

func (acts) Note() string    { return "" }
func (acts) Waiter() float64 { return 0 }
func (acts) Couples() string { return "timed actions change the cluster during the run" }

func (as acts) Init(c Core) {
	for _, a := range as {
		if a.SetLimit {
			c.MayLimit(a.Stream, a.Limit != nil && a.Limit.Queue)
		}
	}
}

func (as acts) On(c Core) {
	c.Register(as, evActs)
	for i, a := range as {
		if a.At >= c.Duration() {
			continue
		}
		at := a.At
		if a.SetLimit {
			at += c.Network()
		}
		c.Schedule(at, int32(i), evActs)
	}
}

func (as acts) Handle(c Core, now Time, i int32) {
	a := &as[i]
	switch {
	case a.Cores > 0:
		c.SetCores(now, a.Node, a.Cores)
	case a.SetLimit:
		c.SetClientLimit(now, a.Stream, a.Limit)
	}
	c.Note(a.At, a.Text)
}

// followers is a test's followers: n per shard, with reads from any copy when any, each
// write's apply at cost (0: its stream's cost), a
// Setting that does through the Core what mechanisms/replicas' Replicas does (sim's own
// tests cannot import it).
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
