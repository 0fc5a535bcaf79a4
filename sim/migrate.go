package sim

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/shardsim/shardsim/keyspace"
)

// Migration moves the table to a new layout (another key design and shard scheme on the
// same nodes) during the run, as an online migration does (docs/migrations.md). An Action of
// kind Migrate starts it:
//
//   - dual writes: from then on every write also goes to the new layout, as a second set
//     of subrequests planned by the new layout's planner; the request completes when both
//     are served;
//   - backfill: the rows that existed at the start (ToCopy: HistoryRows, plus the rows the
//     run wrote before it) are copied at Rate rows per second, in batches of background
//     work that read the old layout's shards and write the new one's, both in key order,
//     queueing with live traffic at the nodes;
//   - cutover: reads and scans switch to the new layout and writes stop going to the old
//     one, when the backfill is done (Cutover = CutoverBackfill), at a time, or never
//     (CutoverNever: a dry run).
//
// The new layout's shards are numbered after the old one's (from len(Model.ShardNode)),
// so their load, latency and rows appear in the Result beside the old shards.
type Migration struct {
	// Planners holds the new layout's planner of each stream, in Model.Streams order. They
	// plan from the same field values as the old planners (the tables must agree).
	Planners []Planner
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
	ReadCost, WriteCost Time
	// Cutover is when reads switch to the new layout: a time, CutoverBackfill or
	// CutoverNever.
	Cutover Time
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
	Outbox Time
	// ReadBoth changes the way to the new layout, as a salt's growth from N to 2N buckets
	// does without a copy: from the start, writes go to the new layout only (no dual
	// writes) and reads and scans visit both layouts (the old one holds the rows written
	// before, the new one those written since), until the cutover. Rate may then be 0: no
	// backfill (the cutover is then a time, or never).
	ReadBoth bool
	// Verify, when positive, keeps writes going to the old layout too for this long after
	// the cutover (a verification period, in which the old layout can still be returned
	// to); reads go to the new layout from the cutover on.
	Verify Time
	// Tenant, when set, moves one tenant alone (as Citus's isolate_tenant_to_new_shard
	// does): only the requests whose field Tenant.Field is Tenant.Value plan the new
	// layout (Planners: the tenant's own shards), the others plan the old one throughout;
	// the backfill copies the tenant's rows only. Not with Verify: DualCPU would count
	// every tenant's writes to the old layout in the verification period.
	Tenant *Tenant
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

const (
	// CutoverBackfill makes the cutover happen when the backfill is done.
	CutoverBackfill Time = -1
	// CutoverNever makes the migration a dry run: dual writes and the backfill, no cutover.
	CutoverNever Time = math.MaxInt64
)

// MigrationResult is what a migration did. Times are since the start of the run; a phase
// not reached has -1.
type MigrationResult struct {
	Start, BackfillDone, Cutover Time
	// RowsToCopy are the rows the backfill had to copy; RowsCopied those it copied by the
	// end of the run.
	RowsToCopy, RowsCopied int64
	// BackfillCPU is the CPU time of the backfill's reads and writes, counted as they are
	// served, within the run (BackfillBusy holds it by window); DualCPU that of the dual
	// writes' second copy: on the new layout before the cutover, on the old one during
	// the verification period. Their sum is the CPU the migration added.
	BackfillCPU, DualCPU Time
	// Copied holds the rows copied in each window.
	Copied []int64
	// BackfillBusy holds the backfill's CPU time in each window: a batch's service counts
	// in the windows it spans, as ShardBusy, not when the batch was issued.
	BackfillBusy []Time
	// Refused counts the backfill's batches a full queue (Node.QueueLimit) pushed back:
	// each waited one batch period and was issued again, which slows the copy.
	Refused int64
	// Rate is the backfill's rate in rows per second: Migration.Rate, or the lower rate
	// its MaxCPU allows.
	Rate float64
	// OldWritesEnd is when writes stopped going to the old layout: the cutover, or the end
	// of the verification period after it (-1: not reached).
	OldWritesEnd Time
	// Shards is the first shard id of the new layout: shards before it are the old one's.
	Shards int
	// CutoverDue is when the cutover was due (the end of the backfill, or its clock time;
	// -1: not reached). Cutover is later when it waited for an outbox to drain.
	CutoverDue Time
	// Drained counts the outbox's copies applied while the cutover waited for them; their
	// CPU is in DualCPU, as every copy's.
	Drained int64
	// Settled is when the last request issued before the cutover reached its client
	// (served or failed), if that was after the cutover; -1 otherwise. Until then the
	// backlog the old layout built is still draining, so the phase "after" starts here.
	Settled Time
}

// settle notes that a request issued at issue reached its client at t.
func (g *migState) settle(issue, t Time) {
	if c := g.res.Cutover; c >= 0 && issue < c && t > c {
		g.res.Settled = max(g.res.Settled, t)
	}
}

// Migration phases.
const (
	migBefore uint8 = iota // reads and writes go to the old layout
	migDual                // writes go to both layouts, reads to the old one
	migVerify              // writes go to both layouts, reads to the new one
	migExpand              // writes go to the new layout, reads to both (ReadBoth)
	migAfter               // everything goes to the new layout
)

// backfillMark is the attempt number of a backfill subrequest (req followerReq), which
// tells it from a follower's apply; outboxMark that of an outbox's copy. A request's
// attempts stay far below both (at most 1 + 10 retries).
const (
	backfillMark = math.MaxUint8
	outboxMark   = backfillMark - 1
)

// backfillBatch is how much copy work one batch holds: the rows of 10 ms at the backfill
// rate, at least one. A batch is one read subrequest on an old shard and then, when the
// read is served, one write subrequest on a new shard, as a copy job reads a page of rows
// and writes what it read: a batch holds one core at a time.
const backfillBatch = 10 * Millisecond

// copyPeriod is the time between two batches of batch rows at rate rows per second, at
// most maxCopyPeriod: a rate near zero (1e-300 rows/s, or a max_cpu that leaves almost
// nothing) copies nothing in any run, where the period's conversion from an infinite
// float used to come out negative and run the copy flat out.
func copyPeriod(batch int64, rate float64) Time {
	p := float64(batch) / rate * float64(Second)
	if !(p < float64(maxCopyPeriod)) {
		return maxCopyPeriod
	}
	return max(Time(p), 1)
}

// maxCopyPeriod is the longest copy period: past the end of the longest run (10000 days).
const maxCopyPeriod = 10000 * 24 * Hour

// backfillPerNode is how many batches the backfill keeps in flight per node of the
// cluster: a copy worker per node, which reads its next batch while it writes the one
// before (docs/migrations.md).
const backfillPerNode = 2

// migState is the engine's migration state (nil when the model has no migration).
type migState struct {
	m      *Migration
	res    *MigrationResult
	off    int32 // the new layout's first shard id
	nNew   int
	phase  uint8
	batch  int64 // rows of a full batch
	period Time  // time between two batches' issues at the backfill rate
	issued int64 // rows handed to batches so far
	// inflight counts the backfill's batches in flight, from the issue of their read to
	// the end of their write; at most depth are, two per node (a copy worker per node that
	// reads its next batch while it writes the one before), so that a backfill the CPU
	// cannot keep up with slows down instead of filling the queues. The bound is the
	// copy's, not a node's: batches that read one shard can share its node's cores. A
	// batch runs its read, then its write, so the copy holds at most depth cores at once.
	inflight, depth int
	blocked         bool // a batch is due but waits for one in flight to finish
	// The streams as the engine sees them during the dual writes (the write streams: dual)
	// and after the cutover (after): copies of Model.Streams whose planners are the
	// migration's (migPlanner). A phase change points the streams' state at them, so the
	// request path plans through its usual interface call and knows nothing of phases.
	dual, after   []Stream
	dualP, afterP []migPlanner
	// The outbox (Migration.Outbox): new-layout copies waiting for their time, in time
	// order (every copy waits the same lag); a ring that grows and never shrinks.
	e        *engine
	ob       []outboxCopy
	obHead   int
	obLen    int
	obTicked bool // an evOutbox event is pending
	obFlight int  // copies taken out of the outbox and not yet applied at their nodes
	draining bool // the cutover is due and waits for the outbox to drain
}

// outboxCopy is a write's copy waiting in the outbox until at.
type outboxCopy struct {
	at     Time
	stream int32
	shard  int32
	parts  int32
	// service is the CPU time of a copy a full queue refused once (kept for its retry); 0:
	// drawn when the copy is applied.
	service Time
}

// migPlanner plans a request during a migration: the old layout's visits (dual writes
// only), then the new layout's, whose shard ids are offset past the old ones.
type migPlanner struct {
	old, next Planner
	off       int32
	dual      bool
	stream    int32
	ms        *migState // set with an outbox: the new layout's visits wait there instead
	// With a tenant migration (tenant), a request whose field tf is not tv plans the old
	// layout only.
	tenant bool
	tf     int32
	tv     uint64
	all    bool // the stream reads every tenant: the old layout and, after, the new one
}

// Plan appends the request's visits to dst: the old layout's (dual), then the new one's.
func (p *migPlanner) Plan(dst []keyspace.Visit, r *rand.Rand, fields []uint64, rowTime int64) []keyspace.Visit {
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
	if p.ms != nil {
		for _, v := range dst[n:] {
			p.ms.toOutbox(v, p.stream)
		}
		dst = dst[:n] // the client waits for the old layout only
	}
	return dst
}

// toOutbox queues visit v of a write of stream, planned now, for the new layout.
func (ms *migState) toOutbox(v keyspace.Visit, stream int32) {
	ms.push(outboxCopy{at: ms.e.now + ms.m.Outbox, stream: stream, shard: v.Shard, parts: v.Partitions})
}

// push appends c, due at or after every copy in the ring, to the outbox.
func (ms *migState) push(c outboxCopy) {
	e := ms.e
	if ms.obLen == len(ms.ob) {
		grown := make([]outboxCopy, max(64, 2*len(ms.ob)))
		for k := range ms.obLen {
			grown[k] = ms.ob[(ms.obHead+k)%len(ms.ob)]
		}
		ms.ob, ms.obHead = grown, 0
	}
	ms.ob[(ms.obHead+ms.obLen)%len(ms.ob)] = c
	ms.obLen++
	if !ms.obTicked {
		ms.obTicked = true
		e.h.pushKind(c.at, 0, evOutbox)
	}
}

// outbox applies the copies whose time has come at now, each as a write nobody waits for
// (like a follower's apply), and waits for the next.
func (e *engine) outbox(now Time) {
	ms := e.mig
	ms.obTicked = true // a copy refused meanwhile goes back without an event: this loop sets one
	for ms.obLen > 0 {
		c := ms.ob[ms.obHead]
		if c.at > now {
			e.h.pushKind(c.at, 0, evOutbox)
			return
		}
		ms.obHead = (ms.obHead + 1) % len(ms.ob)
		ms.obLen--
		st := &e.streams[c.stream]
		if c.service == 0 {
			c.service = e.serviceTime(st, st.s.Cost, c.parts)
		}
		si := e.subs.take()
		e.subs.items[si] = subreq{req: followerReq, shard: c.shard, node: int16(e.shardNode[c.shard]), parts: c.parts,
			service: c.service, attempt: outboxMark, write: true}
		ms.obFlight++
		e.reach(now, si)
	}
	ms.obTicked = false
}

// outboxRefused handles outbox copy si, which a full queue refused at now: it goes back
// to the outbox and is applied again one lag later, as a change stream retries an apply
// that failed, so that no copy is lost.
func (e *engine) outboxRefused(now Time, si int32) {
	ms := e.mig
	sub := e.subs.items[si]
	e.subs.put(si)
	ms.obFlight--
	// The copy keeps its service (at least 1 ns, as 0 means "draw one"), so its stream,
	// which would only draw it, need not be known.
	ms.push(outboxCopy{at: now + ms.m.Outbox, shard: sub.shard, parts: sub.parts, service: max(sub.service, 1)})
}

// outboxApplied handles the end of an outbox copy's service at now: the cutover that
// waits for the outbox happens once its last copy is applied.
func (e *engine) outboxApplied(now Time) {
	ms := e.mig
	ms.obFlight--
	if ms.draining {
		ms.res.Drained++
		if ms.obLen == 0 && ms.obFlight == 0 {
			e.migCutover(now)
		}
	}
}

// newMig prepares the migration state and extends the engine's shard ids by the new
// layout's shards; called by newEngine before the result arrays are sized.
func newMig(m *Model, old int) *migState {
	g := m.Migration
	if !(g.Rate > 0 || g.ReadBoth && g.Rate == 0 && g.Cutover != CutoverBackfill) || len(g.Planners) != len(m.Streams) || len(g.ShardNode) == 0 ||
		g.Tenant != nil && (g.ReadBoth || g.Verify > 0 || g.Tenant.Share < 0 || g.Tenant.Share > 1) {
		panic("sim: invalid migration: a positive rate (or none, reading both layouts until a set cutover), a planner per stream and a shard are required")
	}
	ms := &migState{m: g, off: int32(old), nNew: len(g.ShardNode), depth: backfillPerNode * len(m.Nodes)}
	rate := g.Rate
	if g.MaxCPU > 0 && g.ReadCost+g.WriteCost > 0 {
		rate = min(rate, g.MaxCPU*float64(minCores(m))/(g.ReadCost+g.WriteCost).Seconds())
	}
	if rate > 0 {
		ms.batch = max(1, int64(math.Round(rate*backfillBatch.Seconds())))
		ms.period = copyPeriod(ms.batch, rate)
	}
	ms.initStreams(m)
	ms.res = &MigrationResult{Start: -1, BackfillDone: -1, Cutover: -1, OldWritesEnd: -1, CutoverDue: -1, Settled: -1, Shards: old, Copied: make([]int64, m.Windows()),
		BackfillBusy: make([]Time, m.Windows()), Rate: rate}
	return ms
}

// initStreams makes the streams as the engine sees them during the dual writes and
// after the cutover: copies of m's streams whose planners are the migration's.
func (ms *migState) initStreams(m *Model) {
	g := m.Migration
	n := len(m.Streams)
	ms.dual, ms.after = make([]Stream, n), make([]Stream, n)
	ms.dualP, ms.afterP = make([]migPlanner, n), make([]migPlanner, n)
	for i := range m.Streams {
		ms.dualP[i] = migPlanner{old: m.Streams[i].Planner, next: g.Planners[i], off: ms.off, dual: true, stream: int32(i)}
		if g.Outbox > 0 && !g.ReadBoth {
			ms.dualP[i].ms = ms // with ReadBoth there are no dual writes: reads use dualP
		}
		ms.afterP[i] = migPlanner{next: g.Planners[i], off: ms.off}
		if t := g.Tenant; t != nil {
			for _, p := range []*migPlanner{&ms.dualP[i], &ms.afterP[i]} {
				p.old, p.tenant, p.tf, p.tv = m.Streams[i].Planner, true, int32(t.Field), t.Value
			}
			if i < len(t.All) && t.All[i] {
				ms.dualP[i].all, ms.afterP[i].all = false, true // all only after: reads do not dual-plan
			}
		}
		ms.dual[i], ms.after[i] = m.Streams[i], m.Streams[i]
		ms.dual[i].Planner, ms.after[i].Planner = &ms.dualP[i], &ms.afterP[i]
	}
}

// minCores is the fewest cores of any of m's nodes at the start, which bounds a copy's
// rate under a CPU cap (Migration.MaxCPU).
func minCores(m *Model) int {
	cores := m.Nodes[0].Cores
	for _, n := range m.Nodes {
		cores = min(cores, n.Cores)
	}
	return cores
}

// migStart starts the migration at now: dual writes and the backfill.
func (e *engine) migStart(now Time) {
	g := e.mig
	if g == nil || g.phase != migBefore {
		return
	}
	g.phase = migDual
	g.res.Start = now
	for i := range e.streams {
		if st := &e.streams[i]; g.m.ReadBoth || st.s.Op == Write {
			e.stopParts(now, st)
		}
		switch st := &e.streams[i]; {
		case g.m.ReadBoth && st.s.Op == Write:
			st.s, st.point = &g.after[i], nil // writes go to the new layout only
		case g.m.ReadBoth:
			st.s, st.point = &g.dual[i], nil // reads visit both layouts
		case st.s.Op == Write:
			st.s, st.point = &g.dual[i], nil // writes plan both layouts from now on
		}
	}
	if g.m.ReadBoth {
		g.phase = migExpand
	}
	if g.m.Rate == 0 {
		return // no backfill
	}
	// The rows to copy: the history, and every row the run wrote before now (a write
	// counts its row when it starts on its core, see start).
	rows := g.m.HistoryRows
	for s := range g.off {
		rows += e.res.Shards[s].Rows
	}
	if t := g.m.Tenant; t != nil {
		rows = int64(math.Round(t.Share * float64(rows))) // the tenant's rows only
	}
	g.res.RowsToCopy = rows
	if rows == 0 {
		e.backfillDone(now)
		return
	}
	e.h.pushKind(now, 0, evBackfill)
}

// backfillTick issues the backfill's next batch at now, unless depth batches are in
// flight, and schedules the one after. The batch's read goes now; its write goes when the
// read is served (backfillEnd).
func (e *engine) backfillTick(now Time) {
	g := e.mig
	if g.issued >= g.res.RowsToCopy || now >= e.m.Duration {
		return
	}
	if g.inflight >= g.depth {
		g.blocked = true
		return
	}
	k := int32(g.issued / g.batch) // the batch's index: every batch before it is full
	b, oldSh, _ := g.batchAt(k)
	if !e.room(oldSh) {
		// Back-pressure: a node whose queue is at its limit refuses the batch, as it
		// refuses a request; the copy job waits one period and tries the batch again.
		g.res.Refused++
		e.h.pushKind(now+g.period, 0, evBackfill)
		return
	}
	g.issued += b
	g.inflight++
	si := e.subs.take()
	// A read carries -(k+1) as its parts: its end sends batch k's write (backfillEnd).
	e.subs.items[si] = subreq{req: followerReq, shard: oldSh, node: int16(e.shardNode[oldSh]), parts: -(k + 1),
		service: g.m.ReadCost * Time(b), attempt: backfillMark, write: false}
	e.reach(now, si)
	if g.issued < g.res.RowsToCopy {
		e.h.pushKind(now+g.period, 0, evBackfill)
	}
}

// batchAt returns batch k's rows, the old shard it reads and the new shard it writes.
// Key order: the batch's position in the copy picks the shards, each layout's rows taken
// as spread evenly over its shards.
func (g *migState) batchAt(k int32) (rows int64, oldSh, newSh int32) {
	first := int64(k) * g.batch
	rows = min(g.batch, g.res.RowsToCopy-first)
	pos := float64(first) / float64(g.res.RowsToCopy)
	oldSh = int32(min(int(pos*float64(g.off)), int(g.off)-1))
	if t := g.m.Tenant; t != nil && len(t.From) > 0 {
		oldSh = int32(t.From[min(int(pos*float64(len(t.From))), len(t.From)-1)])
	}
	newSh = g.off + int32(min(int(pos*float64(g.nNew)), g.nNew-1))
	return rows, oldSh, newSh
}

// backfillWrite sends batch k's write, whose read has been served, at now; a node whose
// queue is at its limit refuses it like a batch (Refused), and it tries again one period
// later, holding its place among the batches in flight.
func (e *engine) backfillWrite(now Time, k int32) {
	g := e.mig
	b, _, newSh := g.batchAt(k)
	if !e.room(newSh) {
		g.res.Refused++
		e.h.pushKind(now+g.period, k, evBackfillWrite)
		return
	}
	si := e.subs.take()
	e.subs.items[si] = subreq{req: followerReq, shard: newSh, node: int16(e.shardNode[newSh]), parts: int32(b),
		service: g.m.WriteCost * Time(b), attempt: backfillMark, write: false}
	e.reach(now, si)
}

// room reports whether a backfill subrequest on shard sh, reaching its node now, would be
// let in: it starts on a free core or waits in a queue below its limit (as reach decides).
func (e *engine) room(sh int32) bool {
	n := &e.nodes[e.shardNode[sh]]
	return n.busy < n.cores || n.limit <= 0 || n.q.Len() < n.limit
}

// backfillServed counts the CPU of a backfill subrequest of the given service that
// starts at now, in the windows its service spans within the run.
func (e *engine) backfillServed(now, service Time) {
	g := e.mig
	for t, end := now, min(now+service, e.m.Duration); t < end; {
		w := int(t / e.m.Window)
		wEnd := min(Time(w+1)*e.m.Window, end)
		g.res.BackfillBusy[w] += wEnd - t
		g.res.BackfillCPU += wEnd - t
		t = wEnd
	}
}

// backfillEnd handles the end of a backfill subrequest's service at now, on shard sh, and
// reports true. rows is what it carried: the batch's rows for its write, -(k+1) for the
// read of batch k, whose end sends the batch's write. (reach lets a batch's subrequests in
// whatever their queue: backfillTick and backfillWrite send one only when room finds a
// core or a place below the queue's limit.)
func (e *engine) backfillEnd(now Time, sh, rows int32) bool {
	if e.copier != nil {
		e.copier.Copied(Core{e}, now, int(sh), rows) // a mechanism's copy (Core.Copy)
		return true
	}
	g := e.mig
	if rows < 0 {
		e.backfillWrite(now, -rows-1)
		return true
	}
	g.inflight--
	if rows > 0 {
		g.res.RowsCopied += int64(rows)
		if w := e.window(now); w >= 0 {
			g.res.Copied[w] += int64(rows)
		}
		if g.res.RowsCopied >= g.res.RowsToCopy && g.res.BackfillDone < 0 {
			e.backfillDone(now)
		}
	}
	if g.blocked && g.inflight < g.depth {
		g.blocked = false
		e.h.pushKind(now, 0, evBackfill)
	}
	return true
}

// backfillDone records the end of the backfill, and cuts over if the cutover waits for it.
func (e *engine) backfillDone(now Time) {
	g := e.mig
	g.res.BackfillDone = now
	if now < e.m.Duration {
		e.note(now, "backfill done: "+groupInt(g.res.RowsCopied)+" rows copied to "+g.m.Name)
	}
	if g.m.Cutover == CutoverBackfill {
		e.migCutover(now)
	}
}

// migCutover switches reads and writes to the new layout at now.
func (e *engine) migCutover(now Time) {
	g := e.mig
	if g.phase != migDual && g.phase != migExpand || now >= e.m.Duration {
		return
	}
	if g.res.CutoverDue < 0 {
		g.res.CutoverDue = now
	}
	if g.m.Outbox > 0 && g.phase == migDual && e.awaitOutbox(now) {
		return
	}
	g.draining = false
	g.res.Cutover = now
	if g.m.Verify > 0 && g.phase == migDual {
		e.verify(now)
		return
	}
	e.note(now, "cutover: reads and writes go to "+g.m.Name)
	e.oldWritesEnd(now)
}

// awaitOutbox makes the dual writes synchronous from now, and reports whether the
// cutover, due now, waits for the outbox to drain. Reads cannot move before the new
// layout has every write: the copies in the outbox are applied first (outboxApplied
// calls migCutover again), and writes go to both layouts synchronously meanwhile
// (during a verification period too).
func (e *engine) awaitOutbox(now Time) bool {
	g := e.mig
	for i := range g.dualP {
		g.dualP[i].ms = nil
	}
	if g.obLen == 0 && g.obFlight == 0 {
		return false
	}
	if !g.draining {
		g.draining = true
		e.note(now, "cutover due: waiting for the outbox's "+groupInt(int64(g.obLen+g.obFlight))+" copies to reach "+g.m.Name+"; writes go to both layouts synchronously")
	}
	return true
}

// verify moves reads to the new layout at now, the cutover; writes keep both layouts
// until the verification period ends.
func (e *engine) verify(now Time) {
	g := e.mig
	g.phase = migVerify
	for i := range e.streams {
		if st := &e.streams[i]; st.s.Op != Write {
			e.replan(now, st, &g.after[i])
		}
	}
	e.h.pushKind(now+g.m.Verify, 0, evVerified)
	e.note(now, "cutover: reads go to "+g.m.Name+"; writes go to both layouts for "+g.m.Verify.String()+" of verification")
}

// replan points stream st at s, a copy of its Stream whose planner is a migration's, from
// now on: the request path plans through s with its usual interface call.
func (e *engine) replan(now Time, st *streamState, s *Stream) {
	e.stopParts(now, st)
	st.s, st.point = s, nil
}

// oldWritesEnd stops the writes to the old layout at now: every request plans the new
// layout only.
func (e *engine) oldWritesEnd(now Time) {
	g := e.mig
	if now >= e.m.Duration {
		return
	}
	if g.phase == migVerify {
		e.note(now, "verification done: writes stop going to the old layout")
	}
	g.phase = migAfter
	g.res.OldWritesEnd = now
	for i := range e.streams {
		e.replan(now, &e.streams[i], &g.after[i])
	}
}

// groupInt writes n with thousands separators: 1,234,567.
func groupInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

var _ Planner = (*migPlanner)(nil)

// handle issues a backfill batch or its write, cuts over, ends the verification, or
// applies the outbox's due copies.
func (g *migState) handle(e *engine, ev event) {
	switch ev.kind {
	case evBackfill:
		e.backfillTick(ev.at)
	case evBackfillWrite:
		e.backfillWrite(ev.at, ev.idx)
	case evCutover:
		e.migCutover(ev.at)
	case evVerified:
		e.oldWritesEnd(ev.at)
	case evOutbox:
		e.outbox(ev.at)
	}
}

func (*migState) windowEnd(*engine, Time, int) {}
func (*migState) wrapUp(*engine)               {}
