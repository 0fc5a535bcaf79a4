package sim

import "testing"

// silent is a Setting that does nothing and says nothing of why its runs stay on one
// engine (it is no Coupling).
type silent struct{}

func (silent) On(Core)         {}
func (silent) Note() string    { return "" }
func (silent) Waiter() float64 { return 0 }

// TestOneCoreReasonWords: a Setting's own words (Coupling) say why its run stays on one
// engine, whatever Settings that say nothing come before it; a Setting that says nothing
// keeps its run on one engine with a reason that names no mechanism, the core's.
func TestOneCoreReasonWords(t *testing.T) {
	if why := OneCoreReason(moverModel()); why != "" {
		t.Errorf("no mechanism: OneCoreReason %q, want none", why)
	}
	if why, want := OneCoreReason(moverModel(silent{}, followers{n: 1})), "replicas couple the nodes"; why != want {
		t.Errorf("a silent Setting before followers: OneCoreReason %q, want the followers' %q", why, want)
	}
	if why, want := OneCoreReason(moverModel(silent{})), "a mechanism of Model.Mechanisms is not split yet"; why != want {
		t.Errorf("a silent Setting: OneCoreReason %q, want %q", why, want)
	}
}
