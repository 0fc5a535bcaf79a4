package sim

// acts is a test's operator actions: a Setting that applies them at their times through
// the Core, as mechanisms/operator's Actions does (sim's own tests cannot import it), with
// a Migrate action's start of the migration. Its events are of the kind evActs.
type acts []Action

var evActs = NewEventKind()

func (acts) Note() string    { return "" }
func (acts) Waiter() float64 { return 0 }
func (acts) Couples() string { return "timed actions change the cluster during the run" }

func (as acts) Init(c Core) {
	for _, a := range as {
		if a.Kind == SetLimit {
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
		if a.Kind == SetLimit || a.Kind == Switch {
			at += c.Network()
		}
		c.Schedule(at, int32(i), evActs)
	}
}

func (as acts) Handle(c Core, now Time, i int32) {
	a := &as[i]
	switch a.Kind {
	case SetCores:
		c.SetCores(now, a.Node, a.Cores)
	case SetQueueLimit:
		c.SetQueueLimit(a.Node, a.QueueLimit)
	case SetLimit:
		c.SetClientLimit(now, a.Stream, a.Limit)
	case Migrate:
		c.StartMigration(now)
	}
	c.Note(a.At, a.Text)
}
