package diagnose

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// MonotonicKey is the kind of a key that grows with time, a cause of the key's design that
// more than one rule finds (the rows written, and a mechanism's, through what it shows).
const MonotonicKey = "monotonic_key"

// Diagnosis is one finding about why a variant's load is uneven, with the remedy that
// fits it and the numbers it rests on.
type Diagnosis struct {
	Kind     string             `json:"kind"`
	Subject  string             `json:"subject"`
	Message  string             `json:"message"`
	Evidence map[string]float64 `json:"evidence"`
}

// NoHotspot is what a report says of a variant without a diagnosis.
var NoHotspot = fmt.Sprintf("no hotspot found (in the busiest window no shard ran at %.0f%% of its node's cores or more and %g times the median shard)", 100*ShardHotLoad, SkewRatio)

// The diagnosis rules' thresholds. Loads are fractions of a node's cores, shares fractions
// of a stream's requests (or of all rows written).
const (
	// A shard is hot, for the diagnosis, when in the busiest window it runs at ShardHotLoad
	// or more of its node's cores and at SkewRatio times the median shard or more.
	// Below half the cores an uneven spread costs nothing yet.
	ShardHotLoad = 0.5
	SkewRatio    = 2.0
	// hotKeyShare: one key with more than 5% of a stream's requests is a hot key (with
	// 12 shards, an even spread gives each shard about 8%).
	hotKeyShare = 0.05
	// dominantShare: a key, or the hot keys sharing their first field's value (a tenant),
	// with more than 30% of a stream's requests is a dominant tenant rather than a hot item.
	dominantShare = 0.30
	// fairFactor: a key (or tenant) is named only when its share is more than fairFactor
	// times its fair share, the 1/N each of the N keys its stream draws would take if the
	// requests spread evenly over them. A stream of 10 tenants gives each 10%: a small
	// tenant that shares the hot shard of a big one is at its fair share, not a cause.
	fairFactor = 2.0
	// monotonicRowShare: a write stream whose rows land more than half on one shard while it
	// writes monotonicPartitionsPerShard distinct partitions per shard or more has a key
	// that grows with time (or a sequence): every new key sorts after the last one.
	monotonicRowShare           = 0.5
	monotonicPartitionsPerShard = 16
	// burstPeakLoad, burstRatio: a cluster whose load in its busiest window reaches 90% of
	// all its cores while its mean over the run is under half of that is overloaded in
	// time, not in the key space; burstMinRepeats bursts at one period make it synchronized.
	burstPeakLoad   = 0.9
	burstRatio      = 2.0
	burstMinRepeats = 3
)

// Case is what the rules read of one variant: its scenario and design (compile.Describe),
// its figures (metrics.Of), its detection figures (metrics.HotKeysOf, HotPartitionsOf),
// and its result, which the rules read only through metrics' functions (and the alert
// timeline through sim.Result's per-window accessors).
type Case struct {
	Scenario      *metrics.Scenario
	Variant       *metrics.Variant
	Result        *sim.Result
	Run           *metrics.Run
	HotKeys       []metrics.HotKeys
	HotPartitions []metrics.HotPartitions
}

// finding is one application of the rules: the busiest window's shard loads, their
// median, the shards a diagnosis already explains and the streams a mechanism explains (a
// locked row: ExplainStream).
type finding struct {
	*Case
	r         *sim.Result
	loads     []float64
	med       float64
	peakAt    string
	pw        int
	explained map[int]bool
	locked    map[string]bool
	out       []Diagnosis
}

// registeredRules is the place of the rules the mechanisms register (RegisterRule), by
// their ranks.
const registeredRules = "the mechanisms' rules"

// rules are the diagnosis rules in the order they are applied and reported: each adds its
// findings and marks the shards it explains, so that hot_shard_many_keys, last, names
// only the hot shards no other rule explains.
var rules = []struct {
	kinds string
	apply func(*finding)
}{
	{"the mechanisms' stream rules", (*finding).streams},
	{"the mechanisms' wait rules", (*finding).waits},
	{"dominant_tenant, hot_key", (*finding).hotKeys},
	{"low_cardinality, monotonic_key", (*finding).writes},
	{"synchronized_burst", (*finding).burst},
	{"cluster_overloaded", (*finding).overloaded},
	{registeredRules, (*finding).mechanisms},
	{"placement", (*finding).placement},
	{"hot_shard_many_keys", (*finding).manyKeys},
}

// Of applies the rules to a variant. A balanced variant gets none (an empty list).
func Of(c *Case) []Diagnosis {
	r := c.Result
	if len(r.Shards) == 0 || r.Windows == 0 {
		return []Diagnosis{}
	}
	f := &finding{Case: c, r: r, pw: c.Run.PeakWindow, loads: c.Run.PeakLoads, explained: map[int]bool{}, locked: map[string]bool{}, out: []Diagnosis{}}
	f.peakAt = units.Clock(c.Scenario.Start, sim.Time(f.pw)*r.Window, units.TimeOfDay)
	f.med = metrics.Median(f.loads)
	for _, rule := range rules {
		rule.apply(f)
	}
	return f.out
}

// hot reports whether shard s is hot in the busiest window.
func (f *finding) hot(s int) bool {
	return s >= 0 && s < len(f.loads) && f.loads[s] >= ShardHotLoad && (f.med == 0 || f.loads[s] >= SkewRatio*f.med)
}

// shardWords says where hot shard s stands in the busiest window.
func (f *finding) shardWords(s int) string {
	return fmt.Sprintf("in the busiest window (%s) its shard %s runs at %s of its node's cores while the median shard runs at %s",
		f.peakAt, f.shardName(s), units.Percent(f.loads[s], 1), units.Percent(f.med, 1))
}

// shardName names shard s as the run's other files do (metrics.ShardName): a table's
// shard by its number, an index's as INDEX/K, K counted within the index; its engine id
// would name a table shard that does not exist.
func (f *finding) shardName(s int) string { return metrics.ShardName(metrics.IndexLayouts(f.r), s) }

// add records a finding.
func (f *finding) add(d Diagnosis) { f.out = append(f.out, d) }

// stream returns the figures of the stream called name, nil when none.
func (f *finding) stream(name string) *metrics.Stream { return f.Run.Stream(name) }

// FairBar returns the share above which one of n keys (or tenants) is more than fairFactor
// times its fair share 1/n: no bar (0) when n is unknown, or 1, a stream of one key, which
// is all of its stream by construction and is judged by its share alone.
func FairBar(n uint64) float64 {
	if n < 2 {
		return 0
	}
	return fairFactor / float64(n)
}

// pctAtLeast is units.Percent(x, 1) for an upper bound that may round to nothing: "0.1%" rather
// than "0.0%" for a share under a thousandth.
func pctAtLeast(x float64) string {
	if x < 0.001 {
		return "0.1%"
	}
	return units.Percent(x, 1)
}
