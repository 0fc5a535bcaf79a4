// Package migrate is the online migration (docs/migrations.md): a migrate action moves the
// table to a new layout (another key design and shard scheme on the same nodes), or one
// tenant to shards of its own, during the run, with dual writes, a backfill and a cutover.
// Its keys (an action's migrate) are declared, checked and resolved here (keys.go) into
// scenario.MigrationSpec, and compile builds its setting; its engine side is a sim.Setting that meets the engine
// through sim.Core: the new layout's shards (AddShards), its streams' planners (Planner,
// ReplanAt), the backfill's batches (CopyBy, Copy), the outbox's writes (ApplyBy, Apply),
// the CPU of its writes and copies as cores take them (WatchWork) and the requests'
// outcomes (WatchEnds).
package migrate

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
)

// Migration moves the table to a new layout (another key design and shard scheme on the
// same nodes) during the run, as an online migration does (docs/migrations.md). At At (an
// Action of kind Migrate, which the core notes) it starts:
//
//   - dual writes: from then on every write also goes to the new layout, as a second set
//     of subrequests planned by the new layout's planner; the request completes when both
//     are served;
//   - backfill: the rows that existed at the start (ToCopy: HistoryRows, plus the rows the
//     run wrote before it) are copied at Rate rows per second, in batches of background
//     work that read the old layout's shards and write the new one's, both in key order,
//     queueing with live traffic at the nodes;
//   - cutover: reads and scans switch to the new layout and writes stop going to the old
//     one, when the backfill is done (Cutover = sim.CutoverBackfill), at a time, or never
//     (sim.CutoverNever: a dry run).
//
// The new layout's shards are numbered after the table's (the Result's
// MigrationResult.Shards), so their load, latency and rows appear in the Result beside the
// old shards. What it did it reports (sim.Core.Report) as a metrics.MigrationResult.
type Migration struct {
	// At is when it starts: the Migrate action's time.
	At sim.Time
	// Planners holds the new layout's planner of each stream, in Model.Streams order. They
	// plan from the same field values as the old planners (the tables must agree).
	Planners []sim.Planner
	// ShardNode[s] is the node that serves the new layout's shard s.
	ShardNode []int
	// Rate is the backfill's rate in rows per second: above 0, or 0 (no backfill) with ReadBoth.
	Rate float64
	// MaxCPU, when positive, caps the backfill's CPU on a node at this fraction of its
	// cores, as a copy job throttled by load does: the rate is lowered to MaxCPU x cores /
	// (ReadCost + WriteCost), with the fewest cores of any node at the start (a batch's
	// read and write may land on one node). MigrationResult.Rate is the rate applied.
	MaxCPU float64
	// HistoryRows are the rows the table held at t = 0.
	HistoryRows int64
	// ReadCost and WriteCost are the CPU time of reading one row from the old layout and
	// of writing it to the new one.
	ReadCost, WriteCost sim.Time
	// Cutover is when reads switch to the new layout: a time, sim.CutoverBackfill or
	// sim.CutoverNever.
	Cutover sim.Time
	// Name names the new layout in the event texts ("cutover to NAME").
	Name string
	// Outbox, when positive, makes the dual writes asynchronous: a write completes when the
	// old layout has it, and its copy reaches the new layout Outbox later (an outbox or a
	// change-data-capture stream with that lag), where it costs the stream's CPU as before.
	// The cutover waits for the outbox to drain, as a real cutover waits for the change
	// stream to catch up before reads move: from the time it is due, writes go to both
	// layouts synchronously (no copy enters the outbox), reads stay on the old layout, and
	// the cutover happens when the last copy in the outbox has been applied
	// (MigrationResult.CutoverDue, Drained).
	Outbox sim.Time
	// ReadBoth changes the way to the new layout, as a salt's growth from N to 2N buckets
	// does without a copy: from the start, writes go to the new layout only (no dual
	// writes) and reads and scans visit both layouts (the old one holds the rows written
	// before, the new one those written since), until the cutover. Rate may then be 0: no
	// backfill (the cutover is then a time, or never).
	ReadBoth bool
	// Verify, when positive, keeps writes going to the old layout too for this long after
	// the cutover (a verification period, in which the old layout can still be returned
	// to); reads go to the new layout from the cutover on.
	Verify sim.Time
	// Tenant, when set, moves one tenant alone (as Citus's isolate_tenant_to_new_shard
	// does): only the requests whose field Tenant.Field is Tenant.Value plan the new
	// layout (Planners: the tenant's own shards), the others plan the old one throughout;
	// the backfill copies the tenant's rows only. Not with Verify: DualCPU would count
	// every tenant's writes to the old layout in the verification period.
	Tenant *Tenant
	// probe, when set (by this package's tests only), is handed the run's state once On
	// has set it up.
	probe func(*state)
}

// Tenant is the tenant a migration moves alone.
type Tenant struct {
	Field int
	Value uint64
	// Share is the tenant's fraction of the table's rows: the backfill copies Share of
	// HistoryRows and of the rows the run wrote before the start.
	Share float64
	// From lists the old shards that hold the tenant's rows, in the order the backfill
	// reads them, a shard repeated by its share of the rows (the copy's position in the
	// list picks the shard it reads).
	From []int
	// All marks the streams (Model.Streams order) whose requests read every tenant's rows
	// (a scan that does not name a tenant): after the cutover they visit the tenant's
	// shards too, on top of the old layout.
	All []bool
}

// Note is "": explain says what a migration leaves out itself.
func (*Migration) Note() string { return "" }

// Waiter is 0: the batches and copies queue at the nodes as subrequests do.
func (*Migration) Waiter() float64 { return 0 }

// Couples keeps a run with a migration on one engine.
func (*Migration) Couples() string { return "a migration moves shards between nodes" }

// Migration phases.
const (
	before    uint8 = iota // reads and writes go to the old layout
	dual                   // writes go to both layouts, reads to the old one
	verifying              // writes go to both layouts, reads to the new one
	expand                 // writes go to the new layout, reads to both (ReadBoth)
	after                  // everything goes to the new layout
)

// evMigrate is the migration's event: idx k >= 0, batch k's write, pushed back by a full
// queue, tries again; the negative idx below, the others.
var evMigrate = sim.NewEventKind()

const (
	evStart    int32 = -1 // dual writes and the backfill start
	evBackfill int32 = -2 // the backfill issues its next batch
	evCutover  int32 = -3 // the cutover at a clock time
	evVerified int32 = -4 // the verification period ends
	evOutbox   int32 = -5 // the outbox applies its due copies
)

// perNode is how many batches the backfill keeps in flight per node of the cluster: a
// copy worker per node, which reads its next batch while it writes the one before
// (docs/migrations.md).
const perNode = 2

// state is a run's migration.
type state struct {
	m      *Migration
	c      sim.Core
	res    *metrics.MigrationResult
	off    int32 // the new layout's first shard id
	nNew   int
	phase  uint8
	batch  int64    // rows of a full batch
	period sim.Time // time between two batches' issues at the backfill rate
	issued int64    // rows handed to batches so far
	// inflight counts the backfill's batches in flight, from the issue of their read to
	// the end of their write; at most depth are, two per node (a copy worker per node that
	// reads its next batch while it writes the one before), so that a backfill the CPU
	// cannot keep up with slows down instead of filling the queues. The bound is the
	// copy's, not a node's: batches that read one shard can share its node's cores. A
	// batch runs its read, then its write, so the copy holds at most depth cores at once.
	inflight, depth int
	blocked         bool // a batch is due but waits for one in flight to finish
	// The planners of the streams during the dual writes (the write streams: dualP) and
	// after the cutover (afterP). A phase change points the streams at them (Core.ReplanAt),
	// so the request path plans through its usual interface call and knows nothing of phases.
	dualP, afterP []planner
	// The outbox (Migration.Outbox): new-layout copies waiting for their time, in time
	// order (every copy waits the same lag); a ring that grows and never shrinks.
	ob       []outboxCopy
	obHead   int
	obLen    int
	obTicked bool // an evOutbox event is pending
	obFlight int  // copies taken out of the outbox and not yet applied at their nodes
	draining bool // the cutover is due and waits for the outbox to drain
}

// outboxCopy is a write's copy waiting in the outbox until at.
type outboxCopy struct {
	at     sim.Time
	stream int32
	shard  int32
	parts  int32
	// service is the CPU time of a copy a full queue refused once (kept for its retry); 0:
	// drawn when the copy is applied.
	service sim.Time
}

// planner plans a request during a migration: the old layout's visits (dual writes
// only), then the new layout's, whose shard ids are offset past the old ones.
type planner struct {
	old, next sim.Planner
	off       int32
	dual      bool
	stream    int32
	s         *state // set with an outbox: the new layout's visits wait there instead
	// With a tenant migration (tenant), a request whose field tf is not tv plans the old
	// layout only.
	tenant bool
	tf     int32
	tv     uint64
	all    bool // the stream reads every tenant: the old layout and, after, the new one
}

// Plan appends the request's visits to dst: the old layout's (dual), then the new one's.
func (p *planner) Plan(dst []keyspace.Visit, r *rand.Rand, fields []uint64, rowTime int64) []keyspace.Visit {
	if p.tenant && !p.all && fields[p.tf] != p.tv {
		return p.old.Plan(dst, r, fields, rowTime) // another tenant: the old layout
	}
	if p.all && !p.dual {
		// Every tenant, after the cutover: the others' rows on the old layout, the
		// tenant's on its own shards.
		dst = p.old.Plan(dst, r, fields, rowTime)
	}
	if p.dual {
		dst = p.old.Plan(dst, r, fields, rowTime)
	}
	n := len(dst)
	dst = p.next.Plan(dst, r, fields, rowTime)
	for k := n; k < len(dst); k++ {
		dst[k].Shard += p.off
	}
	if p.s != nil {
		for _, v := range dst[n:] {
			p.s.toOutbox(v, p.stream)
		}
		dst = dst[:n] // the client waits for the old layout only
	}
	return dst
}

// OwnShards checks the migration and adds the new layout's shards after the table's.
func (g *Migration) OwnShards(c sim.Core) {
	if !(g.Rate > 0 || g.ReadBoth && g.Rate == 0 && g.Cutover != sim.CutoverBackfill) || len(g.Planners) != c.Streams() || len(g.ShardNode) == 0 ||
		g.Tenant != nil && (g.ReadBoth || g.Verify > 0 || g.Tenant.Share < 0 || g.Tenant.Share > 1) {
		panic("migrate: invalid migration: a positive rate (or none, reading both layouts until a set cutover), a planner per stream and a shard are required")
	}
	c.AddShards(g.ShardNode)
}

// On sets the migration up in c: its planners, its copies and outbox, the hooks that count
// its CPU and the requests' ends, its result, and its start (and a cutover at a time)
// scheduled.
func (g *Migration) On(c sim.Core) {
	old := c.TableIDs()
	s := &state{m: g, c: c, off: int32(old), nNew: len(g.ShardNode), depth: perNode * c.Nodes()}
	rate := g.Rate
	if g.MaxCPU > 0 && g.ReadCost+g.WriteCost > 0 {
		cores := c.ModelCores(0)
		for n := range c.Nodes() {
			cores = min(cores, c.ModelCores(n))
		}
		rate = min(rate, g.MaxCPU*float64(cores)/(g.ReadCost+g.WriteCost).Seconds())
	}
	if rate > 0 {
		s.batch = max(1, int64(math.Round(rate*sim.CopyBatch.Seconds())))
		s.period = sim.CopyPeriod(s.batch, rate)
	}
	s.initPlanners(c)
	windows := c.Result().Windows
	s.res = &metrics.MigrationResult{Start: -1, BackfillDone: -1, Cutover: -1, OldWritesEnd: -1, CutoverDue: -1, Settled: -1, Shards: old,
		Copied: make([]int64, windows), BackfillBusy: make([]sim.Time, windows), Rate: rate}
	c.Report(s.res)
	c.CopyBy(s)
	c.ApplyBy(s)
	c.WatchWork(s)
	c.WatchEnds(s)
	c.Register(s, evMigrate)
	if g.Cutover >= 0 && g.Cutover < c.Duration() {
		c.Schedule(g.Cutover, evCutover, evMigrate)
	}
	if g.At < c.Duration() {
		c.Schedule(g.At, evStart, evMigrate)
	}
	if g.probe != nil {
		g.probe(s)
	}
}

// initPlanners makes the planners of the streams during the dual writes and after the
// cutover, over the streams' own.
func (s *state) initPlanners(c sim.Core) {
	g := s.m
	n := c.Streams()
	s.dualP, s.afterP = make([]planner, n), make([]planner, n)
	for i := range n {
		own := c.Planner(i)
		s.dualP[i] = planner{old: own, next: g.Planners[i], off: s.off, dual: true, stream: int32(i)}
		if g.Outbox > 0 && !g.ReadBoth {
			s.dualP[i].s = s // with ReadBoth there are no dual writes: reads use dualP
		}
		s.afterP[i] = planner{next: g.Planners[i], off: s.off}
		if t := g.Tenant; t != nil {
			for _, p := range []*planner{&s.dualP[i], &s.afterP[i]} {
				p.old, p.tenant, p.tf, p.tv = own, true, int32(t.Field), t.Value
			}
			if i < len(t.All) && t.All[i] {
				s.dualP[i].all, s.afterP[i].all = false, true // all only after: reads do not dual-plan
			}
		}
	}
}

// Handle starts the migration, issues a backfill batch or its write, cuts over, ends the
// verification, or applies the outbox's due copies.
func (s *state) Handle(c sim.Core, now sim.Time, idx int32) {
	switch idx {
	case evStart:
		s.start(c, now)
	case evBackfill:
		s.tick(c, now)
	case evCutover:
		s.cutover(c, now)
	case evVerified:
		s.oldWritesEnd(c, now)
	case evOutbox:
		s.outbox(c, now)
	default:
		s.write(c, now, idx)
	}
}

// start starts the migration at now: dual writes and the backfill.
func (s *state) start(c sim.Core, now sim.Time) {
	g := s.m
	if s.phase != before {
		return
	}
	s.phase = dual
	s.res.Start = now
	for i := range c.Streams() {
		switch write := c.Op(i) == sim.Write; {
		case g.ReadBoth && write:
			c.ReplanAt(now, i, &s.afterP[i]) // writes go to the new layout only
		case g.ReadBoth:
			c.ReplanAt(now, i, &s.dualP[i]) // reads visit both layouts
		case write:
			c.ReplanAt(now, i, &s.dualP[i]) // writes plan both layouts from now on
		}
	}
	if g.ReadBoth {
		s.phase = expand
	}
	if g.Rate == 0 {
		return // no backfill
	}
	// The rows to copy: the history, and every row the run wrote before now (a write
	// counts its row when it starts on its core).
	rows := g.HistoryRows
	for sh := range int(s.off) {
		rows += c.ShardOut(sh).Rows
	}
	if t := g.Tenant; t != nil {
		rows = int64(math.Round(t.Share * float64(rows))) // the tenant's rows only
	}
	s.res.RowsToCopy = rows
	if rows == 0 {
		s.backfillDone(c, now)
		return
	}
	c.Schedule(now, evBackfill, evMigrate)
}

// tick issues the backfill's next batch at now, unless depth batches are in flight, and
// schedules the one after. The batch's read goes now; its write goes when the read is
// served (Copied).
func (s *state) tick(c sim.Core, now sim.Time) {
	if s.issued >= s.res.RowsToCopy || now >= c.Duration() {
		return
	}
	if s.inflight >= s.depth {
		s.blocked = true
		return
	}
	k := int32(s.issued / s.batch) // the batch's index: every batch before it is full
	b, oldSh, _ := s.batchAt(k)
	n := c.ShardNode(int(oldSh))
	if c.QueueFull(n) {
		// Back-pressure: a node whose queue is at its limit refuses the batch, as it
		// refuses a request; the copy job waits one period and tries the batch again.
		s.res.Refused++
		c.Schedule(now+s.period, evBackfill, evMigrate)
		return
	}
	s.issued += b
	s.inflight++
	// A read carries -(k+1) as its rows: its end sends batch k's write (Copied).
	c.Copy(now, int(oldSh), n, -(k + 1), s.m.ReadCost*sim.Time(b))
	if s.issued < s.res.RowsToCopy {
		c.Schedule(now+s.period, evBackfill, evMigrate)
	}
}

// batchAt returns batch k's rows, the old shard it reads and the new shard it writes.
// Key order: the batch's position in the copy picks the shards, each layout's rows taken
// as spread evenly over its shards.
func (s *state) batchAt(k int32) (rows int64, oldSh, newSh int32) {
	first := int64(k) * s.batch
	rows = min(s.batch, s.res.RowsToCopy-first)
	pos := float64(first) / float64(s.res.RowsToCopy)
	oldSh = int32(min(int(pos*float64(s.off)), int(s.off)-1))
	if t := s.m.Tenant; t != nil && len(t.From) > 0 {
		oldSh = int32(t.From[min(int(pos*float64(len(t.From))), len(t.From)-1)])
	}
	newSh = s.off + int32(min(int(pos*float64(s.nNew)), s.nNew-1))
	return rows, oldSh, newSh
}

// write sends batch k's write, whose read has been served, at now; a node whose queue is
// at its limit refuses it like a batch (Refused), and it tries again one period later,
// holding its place among the batches in flight.
func (s *state) write(c sim.Core, now sim.Time, k int32) {
	b, _, newSh := s.batchAt(k)
	n := c.ShardNode(int(newSh))
	if c.QueueFull(n) {
		s.res.Refused++
		c.Schedule(now+s.period, k, evMigrate)
		return
	}
	c.Copy(now, int(newSh), n, int32(b), s.m.WriteCost*sim.Time(b))
}

// CopyStarted counts the CPU of a backfill batch of the given service that a core takes at
// now, in the windows its service spans within the run.
func (s *state) CopyStarted(c sim.Core, now, service sim.Time) {
	window := c.Result().Window
	for t, end := now, min(now+service, c.Duration()); t < end; {
		w := int(t / window)
		wEnd := min(sim.Time(w+1)*window, end)
		s.res.BackfillBusy[w] += wEnd - t
		s.res.BackfillCPU += wEnd - t
		t = wEnd
	}
}

// WriteStarted counts a dual write's second copy, on shard sh, whose service a core takes
// at now (within the run): on the new layout before the cutover, on the old one during
// the verification period.
func (s *state) WriteStarted(c sim.Core, now sim.Time, sh int32, service sim.Time) {
	if s.phase == dual && sh >= s.off || s.phase == verifying && sh < s.off {
		s.res.DualCPU += service
	}
}

// Copied handles the end of a backfill batch's read or write at now, on shard sh. rows is
// what it carried: the batch's rows for its write, -(k+1) for the read of batch k, whose
// end sends the batch's write. (The core lets a batch in whatever its queue: tick and write
// send one only when its node's queue is not full.)
func (s *state) Copied(c sim.Core, now sim.Time, sh int, rows int32) {
	if rows < 0 {
		s.write(c, now, -rows-1)
		return
	}
	s.inflight--
	if rows > 0 {
		s.res.RowsCopied += int64(rows)
		if w := c.Window(now); w >= 0 {
			s.res.Copied[w] += int64(rows)
		}
		if s.res.RowsCopied >= s.res.RowsToCopy && s.res.BackfillDone < 0 {
			s.backfillDone(c, now)
		}
	}
	if s.blocked && s.inflight < s.depth {
		s.blocked = false
		c.Schedule(now, evBackfill, evMigrate)
	}
}

// backfillDone records the end of the backfill, and cuts over if the cutover waits for it.
func (s *state) backfillDone(c sim.Core, now sim.Time) {
	s.res.BackfillDone = now
	if now < c.Duration() {
		c.Note(now, "backfill done: "+groupInt(s.res.RowsCopied)+" rows copied to "+s.m.Name)
	}
	if s.m.Cutover == sim.CutoverBackfill {
		s.cutover(c, now)
	}
}

// cutover switches reads and writes to the new layout at now.
func (s *state) cutover(c sim.Core, now sim.Time) {
	g := s.m
	if s.phase != dual && s.phase != expand || now >= c.Duration() {
		return
	}
	if s.res.CutoverDue < 0 {
		s.res.CutoverDue = now
	}
	if g.Outbox > 0 && s.phase == dual && s.awaitOutbox(c, now) {
		return
	}
	s.draining = false
	s.res.Cutover = now
	if g.Verify > 0 && s.phase == dual {
		s.verify(c, now)
		return
	}
	c.Note(now, "cutover: reads and writes go to "+g.Name)
	s.oldWritesEnd(c, now)
}

// awaitOutbox makes the dual writes synchronous from now, and reports whether the
// cutover, due now, waits for the outbox to drain. Reads cannot move before the new
// layout has every write: the copies in the outbox are applied first (Applied calls
// cutover again), and writes go to both layouts synchronously meanwhile (during a
// verification period too).
func (s *state) awaitOutbox(c sim.Core, now sim.Time) bool {
	for i := range s.dualP {
		s.dualP[i].s = nil
	}
	if s.obLen == 0 && s.obFlight == 0 {
		return false
	}
	if !s.draining {
		s.draining = true
		c.Note(now, "cutover due: waiting for the outbox's "+groupInt(int64(s.obLen+s.obFlight))+" copies to reach "+s.m.Name+"; writes go to both layouts synchronously")
	}
	return true
}

// verify moves reads to the new layout at now, the cutover; writes keep both layouts
// until the verification period ends.
func (s *state) verify(c sim.Core, now sim.Time) {
	s.phase = verifying
	for i := range c.Streams() {
		if c.Op(i) != sim.Write {
			c.ReplanAt(now, i, &s.afterP[i])
		}
	}
	c.Schedule(now+s.m.Verify, evVerified, evMigrate)
	c.Note(now, "cutover: reads go to "+s.m.Name+"; writes go to both layouts for "+s.m.Verify.String()+" of verification")
}

// oldWritesEnd stops the writes to the old layout at now: every request plans the new
// layout only.
func (s *state) oldWritesEnd(c sim.Core, now sim.Time) {
	if now >= c.Duration() {
		return
	}
	if s.phase == verifying {
		c.Note(now, "verification done: writes stop going to the old layout")
	}
	s.phase = after
	s.res.OldWritesEnd = now
	for i := range c.Streams() {
		c.ReplanAt(now, i, &s.afterP[i])
	}
}

// toOutbox queues visit v of a write of stream, planned now, for the new layout.
func (s *state) toOutbox(v keyspace.Visit, stream int32) {
	s.push(outboxCopy{at: s.c.Now() + s.m.Outbox, stream: stream, shard: v.Shard, parts: v.Partitions})
}

// push appends o, due at or after every copy in the ring, to the outbox.
func (s *state) push(o outboxCopy) {
	if s.obLen == len(s.ob) {
		grown := make([]outboxCopy, max(64, 2*len(s.ob)))
		for k := range s.obLen {
			grown[k] = s.ob[(s.obHead+k)%len(s.ob)]
		}
		s.ob, s.obHead = grown, 0
	}
	s.ob[(s.obHead+s.obLen)%len(s.ob)] = o
	s.obLen++
	if !s.obTicked {
		s.obTicked = true
		s.c.Schedule(o.at, evOutbox, evMigrate)
	}
}

// outbox applies the copies whose time has come at now, each as a write nobody waits for
// (like a follower's apply), and waits for the next.
func (s *state) outbox(c sim.Core, now sim.Time) {
	s.obTicked = true // a copy refused meanwhile goes back without an event: this loop sets one
	for s.obLen > 0 {
		o := s.ob[s.obHead]
		if o.at > now {
			c.Schedule(o.at, evOutbox, evMigrate)
			return
		}
		s.obHead = (s.obHead + 1) % len(s.ob)
		s.obLen--
		if o.service == 0 {
			o.service = c.ServiceTime(int(o.stream), o.parts)
		}
		s.obFlight++
		c.Apply(now, int(o.shard), o.parts, o.service)
	}
	s.obTicked = false
}

// Refused handles an outbox copy on shard sh of parts and service, which a full queue
// refused at now: it goes back to the outbox and is applied again one lag later, as a
// change stream retries an apply that failed, so that no copy is lost.
func (s *state) Refused(c sim.Core, now sim.Time, sh int, parts int32, service sim.Time) {
	s.obFlight--
	// The copy keeps its service (at least 1 ns, as 0 means "draw one"), so its stream,
	// which would only draw it, need not be known.
	s.push(outboxCopy{at: now + s.m.Outbox, shard: int32(sh), parts: parts, service: max(service, 1)})
}

// Applied handles the end of an outbox copy's service at now: the cutover that waits for
// the outbox happens once its last copy is applied.
func (s *state) Applied(c sim.Core, now sim.Time, sh int) {
	s.obFlight--
	if s.draining {
		s.res.Drained++
		if s.obLen == 0 && s.obFlight == 0 {
			s.cutover(c, now)
		}
	}
}

// Ended notes that a request issued at issue reached its client at t: one issued before
// the cutover that ends after it delays Settled.
func (s *state) Ended(c sim.Core, issue, t sim.Time) {
	if cut := s.res.Cutover; cut >= 0 && issue < cut && t > cut {
		s.res.Settled = max(s.res.Settled, t)
	}
}

// groupInt writes n with thousands separators: 1,234,567.
func groupInt(n int64) string {
	str := strconv.FormatInt(n, 10)
	for i := len(str) - 3; i > 0 && str[i-1] != '-'; i -= 3 {
		str = str[:i] + "," + str[i:]
	}
	return str
}

var (
	_ sim.Setting     = (*Migration)(nil)
	_ sim.ShardOwner  = (*Migration)(nil)
	_ sim.Coupling    = (*Migration)(nil)
	_ sim.Planner     = (*planner)(nil)
	_ sim.Handler     = (*state)(nil)
	_ sim.Copier      = (*state)(nil)
	_ sim.Applier     = (*state)(nil)
	_ sim.WorkWatcher = (*state)(nil)
	_ sim.EndWatcher  = (*state)(nil)
)
