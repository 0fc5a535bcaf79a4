package metrics

import (
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// Scenario is what the readers of a run's figures (report, diagnose) know of the scenario
// that ran: the scenario's own header (scenario.Scenario: its names, its clock and its
// claims, declared once there) and its variants' designs, as plain data. compile.Describe
// makes it from the typed scenario; no reader looks further back.
type Scenario struct {
	scenario.Scenario
	Variants []Variant
}

// Claim is one of a story's [[claims]] as the loader linked it (docs/stories.md): a
// figure the story states, the measure that checks it and how close the run must come
// (Agree: "about", "at_most" or "at_least").
type Claim = scenario.ClaimSpec

// Variant is one design as the readers of its results see it. A variant that was not
// selected has only a name: its Key is "", its Detect the defaults and Keys nil.
type Variant struct {
	Name        string
	Description string
	Key         string              // the design's key in words
	Scheme      keyspace.SchemeKind // the shard scheme; empty when unknown
	Salt        int                 // salt buckets (0 or 1: none)
	Start       sim.Time
	Streams     []StreamInfo
	Detect      detect.Config
	// Keys names keys and partitions in the scenario's own terms; nil shows plain numbers.
	Keys KeyNamer
	// Prediction is what explain predicts for the design (nil unless asked for).
	Prediction *Prediction
}

// KeyNamer names a stream's keys and partitions ("user_id=123",
// "(region_id=west, hour(ts)=08:00)"); "" (or "()" for a partition) when it cannot.
type KeyNamer interface {
	FormatKey(stream int, values []uint64) string
	FormatStreamPartition(stream int, parts []uint64) string
}

// StreamInfo is what a reader knows of a stream's design: the scenario's own (its name,
// operation and p99 alert thresholds, what its retries mean: scenario.StreamInfo) and how
// many keys it draws.
type StreamInfo struct {
	scenario.StreamInfo
	// KeysDrawn is how many keys the stream draws (the product of its key fields' counts
	// of values), TenantsDrawn how many values its key's first field draws; 0 when unknown
	// or unbounded. Tenants is set when that first field is categorical with two values or
	// more (a list of tenants, regions, plans): one of its values stands for many rows.
	KeysDrawn    uint64
	TenantsDrawn uint64
	Tenants      bool
}

// Stream returns the design of stream i; the zero StreamInfo when the variant has none.
func (v *Variant) Stream(i int) StreamInfo {
	if v == nil || i < 0 || i >= len(v.Streams) {
		return StreamInfo{}
	}
	return v.Streams[i]
}

// StreamNamed returns the design of the stream called name; the zero StreamInfo when none.
func (v *Variant) StreamNamed(name string) StreamInfo {
	if v != nil {
		for _, s := range v.Streams {
			if s.Name == name {
				return s
			}
		}
	}
	return StreamInfo{}
}

// KeyName names one of stream's keys, as numbers when the design cannot.
func (v *Variant) KeyName(stream int, values []uint64) string {
	if v != nil && v.Keys != nil {
		if s := v.Keys.FormatKey(stream, values); s != "" {
			return s
		}
	}
	return PlainValues(values)
}

// PartitionName names a partition key that stream wrote, as numbers when the design cannot.
func (v *Variant) PartitionName(stream int, parts []uint64) string {
	if v != nil && v.Keys != nil {
		if s := v.Keys.FormatStreamPartition(stream, parts); s != "" && s != "()" {
			return s
		}
	}
	return PlainValues(parts)
}

// PlainValues shows field values as numbers: "123", or "(3, 17)" for several.
func PlainValues(values []uint64) string {
	parts := make([]string, len(values))
	for i, x := range values {
		parts[i] = strconv.FormatUint(x, 10)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Prediction is what a design implies before any simulation (compile.Explain): where each
// stream's requests go and the offered load of every shard and node by the utilization
// law (load = rate x cost x partitions / cores).
type Prediction struct {
	Key       string
	NodeShard [][]int // the shards of each node
	Streams   []PlannedStream
	Shards    []OfferedLoad
	Nodes     []OfferedLoad
	Notes     []string // what the figures assume about the design's mitigations
}

// PlannedStream is the fan-out of one request of a stream, and its rates: Shares[s] is the
// mean number of partitions a request reads on shard s, PeakAt the instant of its peak.
type PlannedStream struct {
	Name          string
	Op            sim.Op
	MeanRate      float64
	PeakRate      float64
	PeakAt        sim.Time
	Subrequests   float64
	MaxSubrequest int
	Partitions    float64
	Shares        []float64
	// Cost is the CPU time of one partition, and Work the core-seconds a second the
	// stream offers the cluster at its peak rate (compile.StreamPlan).
	Cost sim.Time
	Work float64
}

// OfferedLoad is the offered load of a shard or node as a fraction of its node's cores, on
// average and at its peak instant (PeakAt).
type OfferedLoad struct {
	ID, Node, Cores int
	Mean, Peak      float64
	PeakAt          sim.Time
}
