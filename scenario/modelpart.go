package scenario

import (
	"cmp"
	"math"
	"slices"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// ModelPart is a mechanism whose setting needs what only the model compiler has (the
// routing of the table or of another layout, the model being built: the followers, a
// rebalance, a migration, the indexes, automatic splits, the operator's actions): its
// folder registers it (RegisterModelPart), and compile builds every part it is given
// through ModelBuild without naming one (docs/architecture.md, "Where a new thing goes").
// A mechanism whose setting its resolver can make appends it to Resolved.Mechanisms
// instead (RegisterMechanism).
type ModelPart struct {
	Name string // the mechanism's folder, for messages
	// Rank places the setting among the model's mechanisms (sim.Model.Mechanisms, which
	// the engine turns on in turn): below 0 before the recipe mechanisms'
	// (Resolved.Mechanisms), lowest first; above 0 after them.
	Rank int
	// Build orders the parts' building (a part may read what an earlier one did to the
	// model: a tenant's migration counts the nodes before a rebalance adds its own) and
	// their notes in explain, lowest first.
	Build int
	// Layouts, if set, are the layouts of the rows other than the table's that the part
	// routes by in s (an index's, the variant a migration moves to): compile builds each
	// one's shard scheme once per variant (ModelBuild.Scheme), taking it from the variant's
	// own routing where the layout is another variant that runs, and draws the fields
	// their keys read.
	Layouts func(s *Resolved) []*Resolved
	// Needs, if set, marks in need the table's fields the part reads of every request
	// besides its layouts' keys (a tenant's field).
	Needs func(s *Resolved, need []bool)
	// Make builds the part's setting of a fresh model (nil: none in this variant); b
	// gives what it is built from. It may change the model (the nodes a rebalance adds,
	// the streams an index routes).
	Make func(b ModelBuild) sim.Setting
	// Note, if set, says what explain's figures leave out of the part in s (""
	// none); m is the variant's model.
	Note func(s *Resolved, m *sim.Model) string
	// Shards, if set, are the layouts of the shards the part adds to the cluster besides
	// the table's (an index's): the engine numbers them after the table's, in the parts'
	// Build order, and places each as PlacementAfter places it; each is routed by a scheme
	// of the variant's own, whose ring compile's memory estimate counts.
	Shards func(s *Resolved) []*Resolved
	// Load, if set, is the work the part adds to each request of stream i of s besides
	// its subrequests on the table's shards' nodes, which explain's offered loads and
	// compile's work estimate count (docs/architecture.md, "Where a new thing goes").
	Load func(s *Resolved, i int) AddedLoad
}

// AddedLoad is the work a model part adds to each request of a stream besides its
// subrequests on the nodes of the table's shards (ModelPart.Load): the zero value adds
// none.
type AddedLoad struct {
	// Spread, when above 0, shares each subrequest evenly among its shard's node and the
	// Spread nodes after it, one of which serves it (reads served by the followers).
	// Explain's figures count each node's share; the work estimate counts the subrequest
	// whole on the shard's node (its busiest node as if it did not spread).
	Spread int
	// Copies are the subrequests each subrequest makes besides itself (a follower's apply
	// of a write), each on another node.
	Copies []Copy
	// Entries are the layouts of the part's own shards (ModelPart.Shards) that each
	// request also writes one partition in, at the stream's cost (an index's entry of a
	// write): the work estimate counts each spread evenly over the layout's nodes, and
	// explain's figures leave them out (the part's Note says so).
	Entries []*Resolved
	// Elsewhere says that the stream's requests are routed over the part's own shards
	// (a read over an index), which explain's figures of the table's shards and nodes
	// leave out (the part's Note says so).
	Elsewhere bool
	// Why says, for people, why the part makes each request's work larger, as the work
	// estimate's message gives it ("" nothing to say).
	Why string
}

// Copy is a subrequest a subrequest makes on another node (AddedLoad.Copies).
type Copy struct {
	Next int      // the node it is served on, Next after its shard's node (modulo the nodes)
	Cost sim.Time // its CPU time for each partition of the subrequest
}

// ModelBuild is what compile gives a part building its setting (ModelPart.Make).
type ModelBuild interface {
	// Scenario is the variant the model is of.
	Scenario() *Resolved
	// Model is the model being built: its nodes, its shards' placement and its streams
	// are built, and the settings of the parts built before this one are not yet in its
	// Mechanisms.
	Model() *sim.Model
	// Splitter is the model's own splitter, which its planners route through (nil: shards
	// do not split).
	Splitter() *keyspace.Splitter
	// Scheme is the shard scheme of layout, the variant itself (the table's, before any
	// split) or one of the part's Layouts; no run changes it.
	Scheme(layout *Resolved) keyspace.Scheme
	// Design is a fresh key design of layout, without hot-key copies.
	Design(layout *Resolved) *keyspace.Design
	// Stream is stream i of layout (one of the part's Layouts) as the layout routes it:
	// its planner (over Scheme(layout)), the generators of the fields the layout's key
	// reads, and the fields that name its key.
	Stream(layout *Resolved, i int) sim.Stream
	// Planner is the planner of stream i of layout (one of the part's Layouts) over
	// Scheme(layout), with its rows' model.
	Planner(layout *Resolved, i int) sim.Planner
	// Placement is the node of each of layout's shards, as the table's are placed
	// (round-robin, random or explicit).
	Placement(layout *Resolved) []int
	// PlacementAfter is the node of each shard of layout, a layout other than the table's
	// whose shards are numbered from first: placed as the table's are (an explicit list
	// places the table only: this one round-robin), continuing where the round of shard
	// first-1 left off.
	PlacementAfter(layout *Resolved, first int) []int
	// Generator is a fresh generator of field fs's values.
	Generator(fs FieldSpec) workload.Generator
}

var modelParts []ModelPart

// RegisterModelPart adds a mechanism's model part; its file calls it from init.
func RegisterModelPart(p ModelPart) {
	modelParts = append(modelParts, p)
	slices.SortStableFunc(modelParts, func(a, b ModelPart) int { return cmp.Compare(a.Build, b.Build) })
}

// ModelParts are the registered model parts, in their Build order.
func ModelParts() []ModelPart { return modelParts }

type layoutNote struct {
	rank int
	note func(s *Resolved) string
}

var layoutNotes []layoutNote

// RegisterLayoutNote adds a mechanism's note on where variant s's rows are served, which
// explain gives first among its notes, lowest rank first (the followers', automatic
// splits', partition limits'): what its offered loads assume of the mechanism, "" when s
// has nothing of it. Its file calls it from init.
func RegisterLayoutNote(rank int, note func(s *Resolved) string) {
	layoutNotes = append(layoutNotes, layoutNote{rank, note})
	slices.SortStableFunc(layoutNotes, func(a, b layoutNote) int { return cmp.Compare(a.rank, b.rank) })
}

// LayoutNotes are the mechanisms' notes on where s's rows are served (RegisterLayoutNote),
// in their ranks' order.
func (s *Resolved) LayoutNotes() []string {
	var out []string
	for _, n := range layoutNotes {
		if x := n.note(s); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// RowCopyCosts returns what copying s's table rows costs (a migration's backfill, a
// rebalance): a row's read cost, readCost when set, else by default one point read's (the
// first read stream's, or the first write stream's when none reads); its write cost,
// writeCost when set, else one write's (the first write stream's; with no write stream, a
// copy costs a read); and the history rows, the write streams' initial rate times
// table.history.
func RowCopyCosts(s *Resolved, readCost, writeCost sim.Time) (read, write sim.Time, historyRows int64) {
	var history float64
	for i := range s.Streams {
		ss := &s.Streams[i]
		if ss.Op == sim.Write {
			history += ss.Schedule.Rate(0) * s.History.Seconds()
			if write == 0 {
				write = ss.Cost
			}
		}
		if ss.Op == sim.Read && read == 0 {
			read = ss.Cost
		}
	}
	if readCost > 0 {
		read = readCost
	}
	if writeCost > 0 {
		write = writeCost
	}
	if read == 0 {
		read = write
	}
	if write == 0 {
		write = read
	}
	return read, write, int64(math.Round(history))
}
