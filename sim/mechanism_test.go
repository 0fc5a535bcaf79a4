package sim

import "testing"

// TestRegistry checks the registry's bookkeeping: each kind goes to the mechanism that
// registered it, every mechanism is wrapped up in the order it registered, only those
// registered with perWindow see window ends, and a kind taken twice (or evDone, the
// core's) panics.
func TestRegistry(t *testing.T) {
	var g registry
	mig, reb := &migState{}, &rebState{}
	g.register(mig, false, evCutover, evVerified)
	g.register(reb, true, evRebalance)
	if g.on[evCutover] != mig || g.on[evVerified] != mig || g.on[evRebalance] != reb {
		t.Errorf("on = %v, want the migration for its two kinds and the rebalance for evRebalance", g.on)
	}
	for k := range evKinds {
		if k != evCutover && k != evVerified && k != evRebalance && g.on[k] != nil {
			t.Errorf("kind %d has mechanism %v, registered by none", k, g.on[k])
		}
	}
	if len(g.all) != 2 || g.all[0] != mig || g.all[1] != reb {
		t.Errorf("all = %v, want the migration then the rebalance", g.all)
	}
	if len(g.windowed) != 1 || g.windowed[0] != reb {
		t.Errorf("windowed = %v, want the rebalance alone", g.windowed)
	}
	for _, kind := range []evKind{evRebalance, evDone} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering kind %d (taken, or the core's) did not panic", kind)
				}
			}()
			g.register(closedLoop{}, false, kind)
		}()
	}
}
