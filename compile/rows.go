package compile

import (
	"slices"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// RowModel returns the row model scan reads its rows by (keyspace.Rows): every write stream
// of the variant fills the table at its scheduled rate, from table.history before the start
// on, and each key part takes the share of a stream's writes that its field's generator
// gives the part's value.
func RowModel(s *scenario.Resolved, scan *scenario.StreamSpec) *keyspace.Rows {
	m := &keyspace.Rows{History: int64(s.History), Limit: scan.RowLimit}
	for i := range s.Streams {
		ws := &s.Streams[i]
		if ws.Op != sim.Write {
			continue
		}
		m.Sources = append(m.Sources, keyspace.RowSource{Written: ws.Integral, Share: partShares(s, ws)})
	}
	// An equality on a unique id (a uuid or a time-ordered id) names one row.
	off := len(scan.Query) - len(s.Parts)
	for i, p := range s.Parts {
		f := scan.Fields[p.Field]
		if p.Kind == keyspace.FieldPart && (f.Gen == "uuid" || f.Gen == "uuidv4" || f.TimeOrdered) && off+i >= 0 &&
			off+i < len(scan.Query) && scan.Query[off+i].Mode == keyspace.Known {
			m.OnePerKey = true
		}
	}
	return m
}

// partShares returns, per key part (salt first when salted), the fraction of ws's writes
// that have a given value there, or nil where the part does not narrow the rows.
func partShares(s *scenario.Resolved, ws *scenario.StreamSpec) []func(uint64) float64 {
	var out []func(uint64) float64
	inKey := func(field int) bool {
		return slices.ContainsFunc(s.Parts, func(p keyspace.Part) bool { return p.Kind == keyspace.FieldPart && p.Field == field })
	}
	if keyspace.Salted(s.Salt) {
		var f func(uint64) float64
		if s.SaltMode != keyspace.SaltHash || !inKey(s.SaltField) {
			f = uniformShare(uint64(s.Salt))
		}
		out = append(out, f)
	}
	for _, p := range s.Parts {
		var f func(uint64) float64
		switch p.Kind {
		case keyspace.FieldPart:
			f = fieldShare(ws.Fields[p.Field])
		case keyspace.HashPart:
			if !inKey(p.Field) {
				f = uniformShare(p.Mod)
			}
		}
		out = append(out, f)
	}
	return out
}

// uniformShare is the share of one of n equally likely values.
func uniformShare(n uint64) func(uint64) float64 {
	return func(v uint64) float64 {
		if v >= n {
			return 0
		}
		return 1 / float64(n)
	}
}

// fieldShare is the probability of each value of a field's generator; nil for a unique or
// time-ordered id, which does not narrow the rows of a time range.
func fieldShare(fs scenario.FieldSpec) func(uint64) float64 {
	switch fs.Gen {
	case "uniform":
		return workload.NewUniform(fs.N).Prob
	case "zipf":
		return workload.NewZipf(fs.N, fs.S, fs.Scramble).Prob
	case "hotspot":
		return workload.NewHotspot(fs.N, fs.HotFraction, fs.HotOps).Prob
	case "categorical":
		if fs.Weights == nil {
			return uniformShare(uint64(fs.Count))
		}
		sum := 0.0
		for _, w := range fs.Weights {
			sum += w
		}
		p := make([]float64, len(fs.Weights))
		for i, w := range fs.Weights {
			p[i] = w / sum
		}
		return func(v uint64) float64 {
			if v >= uint64(len(p)) {
				return 0
			}
			return p[v]
		}
	}
	return nil
}
