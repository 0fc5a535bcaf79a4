package diagnose

import (
	"fmt"
	"slices"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// The rules of the mechanisms: each is its mechanism's, in its folder (docs/architecture.md,
// "Where a new thing goes"), registered by the package's init, on the streams' figures
// (RegisterStreamRule: a row's lock's hot_row_lock) or on the waits (before or after service) it
// reports (RegisterWaitRule, by the wait's name: a page latch's hot_index_page, a pool's
// connection_pool), or on the whole variant at a place of its own among the rules that read
// the busiest window (RegisterRule, after cluster_overloaded and before placement, at its
// rank). Their alerts on a stream's windows are registered the same way
// (RegisterStreamAlert, at its rank after the errors alert and before timed_out). A run
// that reports a mechanism's figures has the package that made them linked in, so its
// rules are registered wherever those figures can be read.

// HotQueueLoad is the load from which one server that passes one request at a time (a row's
// lock, a page latch) is a hotspot: at 0.7 a request waits more than a hold on average
// (Pollaczek-Khinchine, constant hold: rho/(2(1-rho)) = 1.17 holds), and the wait grows as
// 1/(1-rho) beyond. Poisson arrivals find it held a share of the time equal to its load
// (PASTA).
const HotQueueLoad = 0.7

// Finding is what a mechanism's rule reads of the variant being diagnosed, and where it
// reports what it finds.
type Finding struct{ f *finding }

// Run returns the variant's figures, to read only: its streams, its busiest node (Node),
// its busiest window (PeakWindow) and its shards' loads in it (PeakLoads).
func (v Finding) Run() *metrics.Run { return v.f.Run }

// Result returns the variant's result, to read only through metrics' functions.
func (v Finding) Result() *sim.Result { return v.f.r }

// Scenario returns what the variant's scenario says of time: its start and warmup.
func (v Finding) Scenario() *metrics.Scenario { return v.f.Scenario }

// PeakAt says when the busiest window starts, as a time of day.
func (v Finding) PeakAt() string { return v.f.peakAt }

// Median returns the median shard's load in the busiest window.
func (v Finding) Median() float64 { return v.f.med }

// ShardName names shard s as the run's other files do (metrics.ShardName).
func (v Finding) ShardName(s int) string { return v.f.shardName(s) }

// Add reports d after the diagnoses reported before it.
func (v Finding) Add(d Diagnosis) { v.f.add(d) }

// Explain marks shard s as explained: hot_shard_many_keys, last, does not name it.
func (v Finding) Explain(s int) { v.f.explained[s] = true }

// ExplainStream marks the stream called name as explained by its mechanism: the rules on
// hot keys and on the rows written (dominant_tenant, hot_key, low_cardinality,
// monotonic_key) offer no remedy for it.
func (v Finding) ExplainStream(name string) { v.f.locked[name] = true }

// StreamRule is a mechanism's rule on a stream's figures st: it reports through v.Add
// what it finds, if anything, and marks what that explains.
type StreamRule func(v Finding, st *metrics.Stream)

// streamRules are the registered stream rules, in the order registered.
var streamRules []StreamRule

// RegisterStreamRule registers rule, from a mechanism's init. The stream rules are
// applied first, before every other rule, so that the streams and shards they explain are
// known to the rules after them: each to every stream in the streams' order, in the order
// registered (the packages' init order, by their import paths).
func RegisterStreamRule(rule StreamRule) { streamRules = append(streamRules, rule) }

// streams applies the mechanisms' stream rules.
func (f *finding) streams() {
	for _, rule := range streamRules {
		for i := range f.Run.Streams {
			rule(Finding{f}, &f.Run.Streams[i])
		}
	}
}

// WaitRule is a mechanism's rule on a wait it reports: it reads stream st's figures and
// their wait w, and reports through v.Add what it finds, if anything.
type WaitRule func(v Finding, st *metrics.Stream, w metrics.Wait)

// waitRules are the registered wait rules by their wait's name.
var waitRules = map[string]WaitRule{}

// RegisterWaitRule registers rule for the waits called name (metrics.Wait.Name), from a
// mechanism's init; it panics on a name registered twice.
func RegisterWaitRule(name string, rule WaitRule) {
	if _, ok := waitRules[name]; ok {
		panic(fmt.Sprintf("diagnose: a wait rule for %q is registered twice", name))
	}
	waitRules[name] = rule
}

// waits applies the mechanisms' wait rules to each stream's waits, in the streams' order
// and each stream's waits' order.
func (f *finding) waits() {
	for i := range f.Run.Streams {
		st := &f.Run.Streams[i]
		for _, w := range st.Waits {
			if rule := waitRules[w.Name]; rule != nil {
				rule(Finding{f}, st, w)
			}
		}
	}
}

// Rule is a mechanism's rule on the whole variant: it reports through v.Add what it
// finds, if anything, and marks the shards that explains (v.Explain).
type Rule func(v Finding)

// ranked is a mechanism's rule or alert at its rank.
type ranked[T any] struct {
	rank int
	name string
	it   T
}

// register inserts it at its rank into list, whatever the order of the calls (the
// packages' init order); it panics on a rank or a name registered twice.
func register[T any](list *[]ranked[T], what string, rank int, name string, it T) {
	for _, r := range *list {
		if r.rank == rank || r.name == name {
			panic(fmt.Sprintf("diagnose: %s %q at rank %d: %q is registered at rank %d", what, name, rank, r.name, r.rank))
		}
	}
	i, _ := slices.BinarySearchFunc(*list, rank, func(r ranked[T], rank int) int { return r.rank - rank })
	*list = slices.Insert(*list, i, ranked[T]{rank, name, it})
}

// rankedRules are the registered rules, by rank.
var rankedRules []ranked[Rule]

// RegisterRule registers rule, called name (the kind it reports, as the rules table
// names its rules), from a mechanism's init. The registered rules are applied after
// cluster_overloaded and before placement, by increasing rank: the rank, not the
// packages' init order, is what places a rule among the others (each marks the shards it
// explains, which the rules after it leave). It panics on a rank or a name registered
// twice.
func RegisterRule(rank int, name string, rule Rule) {
	register(&rankedRules, "rule", rank, name, rule)
}

// mechanisms applies the registered rules in the order of their ranks.
func (f *finding) mechanisms() {
	for _, r := range rankedRules {
		r.it(Finding{f})
	}
}

// Rules returns the names of the rules in the order they are applied and reported, the
// registered ones in their places.
func Rules() []string {
	var out []string
	for _, r := range rules {
		if r.kinds != registeredRules {
			out = append(out, r.kinds)
			continue
		}
		for _, m := range rankedRules {
			out = append(out, m.name)
		}
	}
	return out
}

// StreamAlert is a mechanism's alert on a stream's windows: it returns what window w of
// stream st (of result r) shows, ok when it fires there. The timeline raises it at the
// end of the first window it fires in, once per stream, timed against node (cluster-wide
// when node < 0: see Alerts).
type StreamAlert func(r *sim.Result, st *sim.StreamResult, w int) (msg string, node int, ok bool)

// rankedAlerts are the registered stream alerts, by rank.
var rankedAlerts []ranked[StreamAlert]

// RegisterStreamAlert registers alert, of kind kind, from a mechanism's init. In a window,
// a stream's alerts are raised in the order errors, the registered ones by increasing
// rank (not the packages' init order), timed_out. It panics on a rank or a kind
// registered twice.
func RegisterStreamAlert(rank int, kind string, alert StreamAlert) {
	register(&rankedAlerts, "stream alert", rank, kind, alert)
}

// AlertKinds returns the kinds of the registered stream alerts, in the order raised.
func AlertKinds() []string {
	out := make([]string, len(rankedAlerts))
	for i, a := range rankedAlerts {
		out[i] = a.name
	}
	return out
}
