package compile

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenario"
)

// described counts Describe's calls (Described).
var described atomic.Int64

// Described is how many times this process has called Describe. run describes its scenario
// once and every reader shares that (docs/architecture.md); tests read it to check that no
// step of a run describes it again.
func Described() int64 { return described.Load() }

// Describe is the one translation of a typed scenario into what the readers of its
// figures know of it (metrics.Scenario): its names and clock, its claims, and each
// variant's key, streams, detection settings and key names. exs, when given, are the
// variants' explanations (one per variant, in order), carried as their predictions.
func Describe(sc *scenario.Scenario, variants []*scenario.Variant, exs []*Explanation) *metrics.Scenario {
	described.Add(1)
	out := &metrics.Scenario{Scenario: *sc}
	out.Claims = slices.Clone(sc.Claims)
	for i, v := range variants {
		d := v.Detect()
		mv := metrics.Variant{Name: v.Name, Description: v.Description, Key: KeyDescription(v.Spec),
			Detect: d}
		for _, st := range v.Streams {
			mv.Streams = append(mv.Streams, metrics.StreamInfo{StreamInfo: st})
		}
		if rs := v.Spec; rs != nil {
			mv.Scheme, mv.Salt, mv.Start, mv.Keys = rs.Scheme, rs.Salt, rs.Start, KeysOf(rs)
			for j := range mv.Streams {
				if j < len(rs.Streams) {
					mv.Streams[j].KeysDrawn, mv.Streams[j].TenantsDrawn, mv.Streams[j].Tenants = keysDrawn(rs, &rs.Streams[j])
				}
			}
		}
		if i < len(exs) && exs[i] != nil {
			mv.Prediction = prediction(exs[i])
		}
		out.Variants = append(out.Variants, mv)
	}
	return out
}

// keysDrawn returns how many keys stream ss draws, N, the product of its key fields'
// counts of values (a categorical field's values of positive weight), how many values
// its key's first field draws (its tenants), 0 when unknown or unbounded (an id without n,
// a time, a replayed log, whose values are the log's), and whether that first field is
// categorical with two values or more. A key's fair share is 1/N, a tenant's one over its
// count.
func keysDrawn(rs *scenario.Resolved, ss *scenario.StreamSpec) (keys, first uint64, tenants bool) {
	fields := scenario.KeyFieldsOf(rs.Parts)
	if len(fields) > 0 && fields[0] < len(ss.Fields) {
		f := ss.Fields[fields[0]]
		tenants = f.Gen == "categorical" && f.Cardinality >= 2
	}
	if ss.Trace != nil {
		return 0, 0, tenants
	}
	keys = 1
	for i, f := range fields {
		if f < 0 || f >= len(ss.Fields) {
			return 0, 0, tenants
		}
		c := valuesDrawn(ss.Fields[f])
		if i == 0 {
			first = c
		}
		if c == 0 || keys > math.MaxUint64/c {
			keys = 0
		}
		keys *= c
	}
	return keys, first, tenants
}

// valuesDrawn returns how many values a field's generator draws: a categorical field's
// values of positive weight, the n of a uniform or Zipf id; 0 when unbounded.
func valuesDrawn(f scenario.FieldSpec) uint64 {
	if f.Gen == "categorical" && f.Weights != nil {
		var n uint64
		for _, w := range f.Weights {
			if w > 0 {
				n++
			}
		}
		return n
	}
	return f.Cardinality
}

// prediction carries an explanation as plain figures.
func prediction(ex *Explanation) *metrics.Prediction {
	p := &metrics.Prediction{Key: ex.Key, NodeShard: ex.NodeShard, Notes: ex.Notes}
	for _, st := range ex.Streams {
		p.Streams = append(p.Streams, metrics.PlannedStream{Name: st.Name, Op: st.Op, MeanRate: st.MeanRate,
			PeakRate: st.PeakRate, PeakAt: st.PeakAt, Subrequests: st.Subrequests, MaxSubrequest: st.MaxSubrequest,
			Partitions: st.Partitions, Shares: st.Shares, Cost: st.Cost, Work: st.Work})
	}
	load := func(l OfferedLoad) metrics.OfferedLoad {
		return metrics.OfferedLoad{ID: l.ID, Node: l.Node, Cores: l.Cores, Mean: l.Mean, Peak: l.Peak, PeakAt: l.PeakAt}
	}
	for _, l := range ex.Shards {
		p.Shards = append(p.Shards, load(l))
	}
	for _, l := range ex.Nodes {
		p.Nodes = append(p.Nodes, load(l))
	}
	return p
}
