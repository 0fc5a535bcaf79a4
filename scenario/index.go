package scenario

import (
	"strings"

	"github.com/shardsim/shardsim/sim"
)

// Global secondary indexes' keys ([[indexes]], a stream's index: docs/scenario.md,
// "[[indexes]]"; docs/mitigations.md, "Global secondary indexes") are declared, checked and
// resolved in mechanisms/index, after the streams and before their queries
// (RegisterRoutingMechanism), into Resolved.Indexes and each stream's Index, which compile,
// the reports and the table's queries read. What is left here is what they resolve to and
// the layout an index resolves its keyspace keys over.

// IndexSpec is a validated index.
type IndexSpec struct {
	Name string
	// Layout is the variant as the index lays its rows out: its key design, scheme,
	// shards and salt in place of the table's, and each stream's scan query planned over
	// them (a stream routed over another index, or over the table, plans no query here).
	// Placement and planners (mechanisms/index's model part) are made from it.
	Layout *Resolved
	Async  bool
	// WriteRate and ReadRate are the partition's limits a second (0: none), Burst what
	// it banks.
	WriteRate, ReadRate float64
	Burst               sim.Time
}

// CopyLayout is a copy of the variant s for a layout of its rows other than the table's
// (an index's): no key design, copies or scheme options, streams of its own.
func CopyLayout(s *Resolved) *Resolved {
	t := *s
	t.Key, t.Parts, t.Copies, t.SchemeOptions = nil, nil, nil, nil
	t.Streams = append([]StreamSpec(nil), s.Streams...)
	return &t
}

// ResolveLayout resolves k, a [keyspace] table of another layout (an index's), into t as
// [keyspace] is resolved, with f's streams, and reports its problems under key
// ("indexes[0].shards" for "keyspace.shards").
func ResolveLayout(c *Checker, key string, k Keyspace, f *File, t *Resolved) {
	own := &checker{}
	resolveKeyspace(own, &File{Keyspace: k, Streams: f.Streams}, t)
	for _, p := range own.probs {
		if rest, ok := strings.CutPrefix(p.Key, "keyspace."); ok {
			p.Key = key + "." + rest
		}
		c.probs = append(c.probs, p)
	}
}

// ResolveQueries plans the queries of s's scans over s's key design, as the table's are
// (a layout's, for the scans routed over it).
func ResolveQueries(c *Checker, s *Resolved) { resolveQueries(c, s) }
