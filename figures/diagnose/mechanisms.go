package diagnose

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/metrics"
)

// The rules of the mechanisms: each is its mechanism's, in its folder (docs/architecture.md,
// "Where a new thing goes"), registered by the package's init, on the streams' figures
// (RegisterStreamRule: a row's lock's hot_row_lock) or on the waits (before or after service) it
// reports (RegisterWaitRule, by the wait's name: a page latch's hot_index_page, a pool's
// connection_pool). A run that reports a mechanism's figures has the package that made
// them linked in, so its rules are registered wherever those figures can be read.

// HotQueueLoad is the load from which one server that passes one request at a time (a row's
// lock, a page latch) is a hotspot: at 0.7 a request waits more than a hold on average
// (Pollaczek-Khinchine, constant hold: rho/(2(1-rho)) = 1.17 holds), and the wait grows as
// 1/(1-rho) beyond. Poisson arrivals find it held a share of the time equal to its load
// (PASTA).
const HotQueueLoad = 0.7

// Finding is what a mechanism's rule reads of the variant being diagnosed, and where it
// reports what it finds.
type Finding struct{ f *finding }

// Run returns the variant's figures, to read only: its streams, its busiest node (Node).
func (v Finding) Run() *metrics.Run { return v.f.Run }

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
