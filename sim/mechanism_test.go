package sim

import "testing"

// TestRegistry checks the registry's bookkeeping: each kind goes to the mechanism that
// registered it, every mechanism is wrapped up in the order it registered, only those
// registered with perWindow see window ends, and a kind taken twice (or evDone, the
// core's) panics.
func TestRegistry(t *testing.T) {
	var g registry
	client, loop, win := clientSide{}, closedLoop{}, watched{}
	g.register(client, false, evTimer, evSend)
	g.register(loop, false, evIssue)
	g.register(win, true)
	if g.on[evTimer] != client || g.on[evSend] != client || g.on[evIssue] != loop {
		t.Errorf("on = %v, want the client side for its two kinds and the closed loop for evIssue", g.on)
	}
	for k := range evKinds {
		if k != evTimer && k != evSend && k != evIssue && g.on[k] != nil {
			t.Errorf("kind %d has mechanism %v, registered by none", k, g.on[k])
		}
	}
	if len(g.all) != 3 || g.all[0] != client || g.all[1] != loop || g.all[2] != win {
		t.Errorf("all = %v, want the client side, the closed loop, then the window watcher", g.all)
	}
	if len(g.windowed) != 1 || g.windowed[0] != win {
		t.Errorf("windowed = %v, want the window watcher alone", g.windowed)
	}
	for _, kind := range []evKind{evIssue, evDone} {
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
