package diagnose

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/metrics"
)

// The rules on the waits before service that mechanisms report (metrics.Wait): each is its
// mechanism's, in its folder (docs/architecture.md, "Where a new thing goes"), registered
// under its wait's name by the package's init. A run that reports a wait has the package
// that made it linked in, so its rule is registered wherever the wait can be read.

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
