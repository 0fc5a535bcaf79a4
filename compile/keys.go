package compile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

// Keys names a design's keys and partitions in the scenario's own terms for the readers
// of its results (metrics.Variant.Keys): field values by their generators, time buckets
// by the clock, salt buckets and copies by number (docs/keys.md).
type Keys struct {
	s *scenario.Resolved // nil: the design is unknown, and names are empty
}

// KeysOf returns the namer of s's keys and partitions.
func KeysOf(s *scenario.Resolved) Keys { return Keys{s: s} }

// FormatKey names a row of a point stream for reports, from the values of the stream's
// KeyFields (in that order): "user_id=123", "region_id=west, ts=08:15:30.250". Categorical
// values are shown by name, time-ordered values as the clock time of their row (with the
// id's counter after '#' when it is not 0). It returns "" for a stream without key fields.
func (k Keys) FormatKey(stream int, values []uint64) string {
	s := k.s
	if s == nil || stream < 0 || stream >= len(s.Streams) || s.Streams[stream].Op == sim.Scan {
		return ""
	}
	ss := &s.Streams[stream]
	var b strings.Builder
	for i, f := range scenario.KeyFieldsOf(s.Parts) {
		if i >= len(values) {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.FieldNames[f])
		b.WriteByte('=')
		b.WriteString(k.formatValue(ss.Fields[f], values[i]))
	}
	return b.String()
}

// FormatPartition names a partition key for reports, part by part, salt first when the
// design is salted and the copy last for a copy of a hot key:
// "(region_id=west, hour(ts)=08:00)", "(salt=3, user_id=42)", "(user_id=7, copy=2)".
// Field values are named by the table's generators; FormatStreamPartition names them by
// a stream's own.
func (k Keys) FormatPartition(parts []uint64) string { return k.FormatStreamPartition(-1, parts) }

// FormatStreamPartition names a partition key that stream wrote, as FormatPartition does,
// but with the stream's own field generators: a stream that draws a field from its own
// categorical values ("page_views") shows them, not the table's.
func (k Keys) FormatStreamPartition(stream int, parts []uint64) string {
	s := k.s
	if s == nil {
		return "()"
	}
	fields := s.Fields
	if stream >= 0 && stream < len(s.Streams) && len(s.Streams[stream].Fields) == len(fields) {
		fields = s.Streams[stream].Fields
	}
	var items []string
	i := 0
	if keyspace.Salted(s.Salt) && i < len(parts) {
		items = append(items, "salt="+strconv.FormatUint(parts[i], 10))
		i++
	}
	for _, p := range s.Parts {
		if i >= len(parts) {
			break
		}
		val := parts[i]
		i++
		switch p.Kind {
		case keyspace.FieldPart:
			items = append(items, s.FieldNames[p.Field]+"="+k.formatValue(fields[p.Field], val))
		case keyspace.TimeBucketPart:
			items = append(items, p.Name+"="+formatBucket(val, p.Width))
		default:
			items = append(items, p.Name+"="+strconv.FormatUint(val, 10))
		}
	}
	for ; i < len(parts); i++ {
		// The trailing part of a hot key's copy (copy 0 has none).
		items = append(items, "copy="+strconv.FormatUint(parts[i], 10))
	}
	return "(" + strings.Join(items, ", ") + ")"
}

// formatValue shows one field value as a user reads it.
func (k Keys) formatValue(fs scenario.FieldSpec, v uint64) string {
	s := k.s
	switch fs.Gen {
	case "categorical":
		if v < uint64(len(fs.Labels)) {
			return fs.Labels[v]
		}
	case "time":
		return units.Clock(s.Start, sim.Time(workload.TimeOf(v)), units.Exact)
	case "snowflake":
		t := units.Clock(s.Start, sim.Time(workload.SnowflakeMillis(v))*sim.Millisecond, units.Exact)
		return withCounter(t, v&(1<<workload.SnowflakeCounterBits-1))
	case "uuidv7", "ulid":
		// The time of the id; its random bits say nothing a reader needs.
		return units.Clock(s.Start, sim.Time(workload.RandomTimeIDTime(v, int64(sim.Millisecond), workload.UUIDv7Bits)), units.Exact)
	case "ksuid":
		return units.Clock(s.Start, sim.Time(workload.RandomTimeIDTime(v, int64(sim.Second), workload.KSUIDBits)), units.Exact)
	case "sequence":
		t := units.Clock(s.Start, sim.Time(workload.SequenceMicros(v))*sim.Microsecond, units.Exact)
		return withCounter(t, v&(1<<workload.SequenceCounterBits-1))
	}
	return strconv.FormatUint(v, 10)
}

// withCounter appends an id's counter to its time, "08:15:30#2", when it is not 0.
func withCounter(t string, n uint64) string {
	if n == 0 {
		return t
	}
	return t + "#" + strconv.FormatUint(n, 10)
}

// formatBucket shows a time bucket (keyspace.Bucket encoding) by the wall-clock time it
// begins at, or by its day for buckets of whole days.
func formatBucket(v uint64, width int64) string {
	b := int64(v ^ 1<<63)
	const day = int64(24 * sim.Hour)
	if width%day == 0 {
		return fmt.Sprintf("day %d", floorDiv(b*width, day))
	}
	return units.Clock(0, sim.Time(b*width), units.Exact)
}

// floorDiv is a/b rounded toward minus infinity (buckets before the start are of day -1).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// KeyDescription says a design's key in words, e.g.
// `hash (modulo) of (user_id) over 12 shards on 3 nodes` ("" without a design).
func KeyDescription(s *scenario.Resolved) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(string(s.Scheme))
	qual, over := s.Scheme.Describe(s.SchemeOptions, s.Shards)
	if qual != "" {
		fmt.Fprintf(&b, " (%s)", qual)
	}
	b.WriteString(" of (")
	if keyspace.Salted(s.Salt) {
		fmt.Fprintf(&b, "salt[%d, %s], ", s.Salt, s.SaltMode)
	}
	b.WriteString(strings.Join(s.Key, ", "))
	if over != "" {
		fmt.Fprintf(&b, ") over %s on %d nodes", over, len(s.Nodes))
		return b.String()
	}
	fmt.Fprintf(&b, ") over %d shards on %d nodes", s.Shards, len(s.Nodes))
	return b.String()
}
