package locks

import (
	"slices"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
)

// TestLockGrantKey: [[streams]] lock_grant turns into the grant order of the stream's row
// lock (GrantFIFO when absent), and each bad value is reported at its dotted key
// (docs/scenario.md, "Keys of the mechanisms").
func TestLockGrantKey(t *testing.T) {
	const locked = "\n[[streams]]\nname = \"update\"\nop = \"write\"\nrate = 100\ncost = \"0.1ms\"\nlock = \"1ms\"\n"
	for _, c := range []struct {
		extra string
		want  Grant
	}{{"", GrantFIFO}, {"lock_grant = \"fifo\"\n", GrantFIFO}, {"lock_grant = \"random\"\n", GrantRandom}} {
		s, probs := mechtest.Resolve(t, locked+c.extra)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		var got []Grant
		for _, x := range s.Mechanisms {
			if rl, ok := x.(RowLocks); ok {
				for _, st := range rl.Streams {
					got = append(got, st.Grant)
				}
			}
		}
		if want := []Grant{GrantFIFO, c.want}; !slices.Equal(got, want) {
			t.Errorf("%q: grant orders %v by stream, want %v", c.extra, got, want)
		}
	}
	for _, c := range []struct{ extra, want string }{
		{locked + "lock_grant = \"lifo\"\n", `streams[1].lock_grant: must be "fifo" or "random" (got "lifo")`},
		{locked + "lock_grant = 1\n", `streams[1].lock_grant: expected a string, got integer 1`},
		{"\n[[streams]]\nname = \"update\"\nop = \"write\"\nrate = 100\ncost = \"0.1ms\"\nlock_grant = \"random\"\n",
			`streams[1].lock_grant: applies only to a stream with a lock: the order its row's waiters get the lock in (add lock = "1ms", or remove lock_grant)`},
		{locked + "lock_grnt = \"random\"\n", `streams[1].lock_grnt: unknown key; did you mean "lock_grant"?`},
	} {
		_, probs := mechtest.Resolve(t, c.extra)
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
}

// TestLockReleaseKey: [[streams]] lock_release turns into when the stream's writes let
// their row's lock go (ReleaseHold when absent), and each bad value is reported at its
// dotted key.
func TestLockReleaseKey(t *testing.T) {
	const locked = "\n[[streams]]\nname = \"update\"\nop = \"write\"\nrate = 100\ncost = \"0.1ms\"\nlock = \"1ms\"\n"
	for _, c := range []struct {
		extra string
		want  Release
	}{{"", ReleaseHold}, {"lock_release = \"hold\"\n", ReleaseHold}, {"lock_release = \"commit\"\n", ReleaseCommit}} {
		s, probs := mechtest.Resolve(t, locked+c.extra)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		var got []Release
		for _, x := range s.Mechanisms {
			if rl, ok := x.(RowLocks); ok {
				for _, st := range rl.Streams {
					got = append(got, st.Release)
				}
			}
		}
		if want := []Release{ReleaseHold, c.want}; !slices.Equal(got, want) {
			t.Errorf("%q: releases %v by stream, want %v", c.extra, got, want)
		}
	}
	for _, c := range []struct{ extra, want string }{
		{locked + "lock_release = \"later\"\n", `streams[1].lock_release: must be "hold" or "commit" (got "later")`},
		{locked + "lock_release = true\n", `streams[1].lock_release: expected a string, got boolean true`},
		{"\n[[streams]]\nname = \"update\"\nop = \"write\"\nrate = 100\ncost = \"0.1ms\"\nlock_release = \"commit\"\n",
			`streams[1].lock_release: applies only to a stream with a lock: when its writes let their row's lock go (add lock = "1ms", or remove lock_release)`},
	} {
		_, probs := mechtest.Resolve(t, c.extra)
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
}
