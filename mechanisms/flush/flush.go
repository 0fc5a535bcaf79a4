// Package flush is the commit flush, whole: its key ([cluster] commit_flush), its check
// and the resolver it registers with the scenario (keys.go), its engine side, a
// sim.Setting that attaches to the engine through sim.Core (flush.go), and its tests: the
// closed forms, a reference simulation of the batch queue, and the transcript of its
// story (testdata). docs/mitigations.md, "Commit flush", says what it models.
package flush

import (
	"fmt"

	"github.com/shardsim/shardsim/internal/waitlist"
	"github.com/shardsim/shardsim/sim"
)

// CommitFlush is each node's flush of its write-ahead log ([cluster] commit_flush,
// docs/mitigations.md "Commit flush"): a write commits when the log holding it is flushed,
// so every write subrequest, when its service at its node ends, waits for the node's next
// flush before it completes. A node has one flusher. An idle flusher starts a flush at
// once for the write that arrives; writes that arrive while a flush runs wait for the next,
// which starts when the current one ends and serves every write waiting at its start
// (group commit, with no bound on the batch). A flush takes Flush, holds no core, and a
// read never waits for one.
//
// The flusher is a bulk-service queue with deterministic service F = Flush and unlimited,
// gated batches. For Poisson writes at rate λ to a node, a busy period is a run of flushes
// that ends with the first flush during which no write arrived (probability e^(−λF)), so
// it holds e^(λF) flushes on average, and the flusher is busy a share
// b = λF·e^(λF) / (1 + λF·e^(λF)) of the time. A write that finds it idle waits F; one that
// finds a flush running (probability b, PASTA) waits that flush's residual, F/2 on
// average, then a whole flush. The mean wait is F·(1 + b/2): F at low load, tending to
// 1.5·F as writes saturate the flusher, while the writes a node commits are not bounded
// by the flush at all (flush_test.go checks both, and the formula against a reference
// simulation of the queue).
//
// A row lock (sim/lock.go) is held before the write's service and released before the
// flush, so the flush does not lengthen a lock's hold, where PostgreSQL releases it at
// commit, after the flush (docs/mitigations.md says so).
type CommitFlush struct {
	Flush sim.Time // how long one flush takes
}

// Waiter: the flush holds nothing back before the nodes' queues; the writes waiting for a
// flush are at most those of two flushes, each keeping its subrequest slot.
func (CommitFlush) Waiter() float64 { return 0 }

// Couples keeps a run with a commit flush on one engine: the flush is not split yet.
func (CommitFlush) Couples() string { return "the commit flush is not split yet" }

// Note says what the offered loads leave out of the commit flush.
func (s CommitFlush) Note() string {
	return fmt.Sprintf("the figures ignore the commit flush: every write waits for its node's log flush of %v after its service (%v at low load, up to %v as writes keep the flusher busy), which holds no core, and one flush serves every write waiting (group commit)", s.Flush, s.Flush, s.Flush+s.Flush/2)
}

// evFlushEnd: a node's flush ends (the node's index).
var evFlushEnd = sim.NewEventKind()

// flushers is the commit flush's state: each node's flusher, and by subrequest slot when
// a waiting write's service ended.
type flushers struct {
	set   CommitFlush
	nodes []flusher
	at    []sim.Time         // by subrequest slot: when its service ended
	waits []*sim.WaitCounter // by stream; nil for a stream that does not write
}

// flusher is one node's: the writes waiting, oldest first, and how many of them the
// running flush serves (0: it is idle).
type flusher struct {
	waiting waitlist.FIFO
	batch   int
}

// On turns the commit flush on: every node gets a flusher, the end of each write's
// service is held for its node's flush, and the waits are counted by writing stream.
func (s CommitFlush) On(c sim.Core) { s.start(c) }

// start turns the commit flush on in c and returns its state.
func (s CommitFlush) start(c sim.Core) *flushers {
	f := &flushers{set: s, nodes: make([]flusher, c.Nodes()), waits: make([]*sim.WaitCounter, c.Streams())}
	for i := range f.waits {
		if c.Op(i) == sim.Write {
			f.waits[i] = c.NewWaits(i, "commit_flush", "writes")
			f.waits[i].Uncapped() // one flush serves every commit waiting: it caps nothing
		}
	}
	c.EndSubs(f)
	c.Register(f, evFlushEnd)
	return f
}

// End holds write subrequest si, whose service ended at now, for its node's next flush:
// at once if the flusher is idle, else after the running flush.
func (f *flushers) End(c sim.Core, now sim.Time, si int32) bool {
	if !c.SubWrite(si) {
		return true
	}
	for int(si) >= len(f.at) {
		f.at = append(f.at, 0)
	}
	f.at[si] = now
	n := c.SubNode(si)
	fl := &f.nodes[n]
	fl.waiting.Push(si)
	if fl.batch == 0 {
		f.flush(c, now, n, fl)
	}
	return false
}

// flush starts node n's flush at now, for every write waiting.
func (f *flushers) flush(c sim.Core, now sim.Time, n int, fl *flusher) {
	fl.batch = fl.waiting.Len()
	c.Schedule(now+f.set.Flush, int32(n), evFlushEnd)
}

// Handle ends node n's flush at now: the writes it served complete, and the writes that
// arrived meanwhile (and any a completion makes) get the next flush, at once.
func (f *flushers) Handle(c sim.Core, now sim.Time, n int32) {
	fl := &f.nodes[n]
	for range fl.batch {
		si := fl.waiting.Pop()
		if w := f.waits[c.SubStream(si)]; w != nil {
			w.Add(c.SubCounted(si), now-f.at[si])
		}
		c.Finish(now, si)
	}
	fl.batch = 0
	if fl.waiting.Len() > 0 {
		f.flush(c, now, int(n), fl)
	}
}
