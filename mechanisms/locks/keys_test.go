package locks

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
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

// TestLockWakeKey: [[streams]] lock_wake_cost turns into the wake cost of the stream's row
// lock (0 when absent or "0s"), and each bad value is reported at its dotted key
// (docs/scenario.md, "Keys of the mechanisms").
func TestLockWakeKey(t *testing.T) {
	const locked = "\n[[streams]]\nname = \"update\"\nop = \"write\"\nrate = 100\ncost = \"0.1ms\"\nlock = \"1ms\"\n"
	for _, c := range []struct {
		extra string
		want  sim.Time
	}{{"", 0}, {"lock_wake_cost = \"0s\"\n", 0}, {"lock_wake_cost = \"15us\"\n", 15 * sim.Microsecond}, {"lock_wake_cost = \"1s\"\n", sim.Second}} {
		s, probs := mechtest.Resolve(t, locked+c.extra)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		var got []sim.Time
		for _, x := range s.Mechanisms {
			if rl, ok := x.(RowLocks); ok {
				for _, st := range rl.Streams {
					got = append(got, st.Wake)
				}
			}
		}
		if want := []sim.Time{0, c.want}; !slices.Equal(got, want) {
			t.Errorf("%q: wake costs %v by stream, want %v", c.extra, got, want)
		}
	}
	for _, c := range []struct{ extra, want string }{
		{locked + "lock_wake_cost = \"-15us\"\n", `streams[1].lock_wake_cost: must not be negative (got "-15us")`},
		{locked + "lock_wake_cost = \"2s\"\n", `streams[1].lock_wake_cost: must be at most 1s (got "2s"): waking a waiter takes microseconds`},
		{locked + "lock_wake_cost = 15\n", `streams[1].lock_wake_cost: must be a duration string such as "1h" (got integer 15)`},
		{locked + "lock_wake_cost = \"fast\"\n", `streams[1].lock_wake_cost: not a duration "fast" (use Go syntax plus d for days: "250us", "15m", "2h", "30d")`},
		{"\n[[streams]]\nname = \"update\"\nop = \"write\"\nrate = 100\ncost = \"0.1ms\"\nlock_wake_cost = \"15us\"\n",
			`streams[1].lock_wake_cost: applies only to a stream with a lock: what a release of its row costs for each waiter it wakes (add lock = "1ms", or remove lock_wake_cost)`},
		{locked + "lock_wake_cst = \"15us\"\n", `streams[1].lock_wake_cst: unknown key; did you mean "lock_wake_cost"?`},
	} {
		_, probs := mechtest.Resolve(t, c.extra)
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
}

// TestLockWakeNote: explain's figures leave the wake cost out, and RowLocks' note says so
// with the cap it sets: 32 closed-loop clients holding one row 2.4 ms with a 15 us wake
// cost leave 31 waiters at each release, 1/(2.4 ms + 31 x 15 us) = 349 writes a second;
// without the key there is no note.
func TestLockWakeNote(t *testing.T) {
	const closed = "\n[[streams]]\nname = \"update\"\nop = \"write\"\nclients = 32\nthink = \"0s\"\ncost = \"0.1ms\"\nlock = \"2.4ms\"\n"
	note := func(extra string) string {
		s, probs := mechtest.Resolve(t, closed+extra)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		for _, x := range s.Mechanisms {
			if rl, ok := x.(RowLocks); ok {
				return rl.Note()
			}
		}
		t.Fatal("no row locks")
		return ""
	}
	if n := note(""); n != "" {
		t.Errorf("without lock_wake_cost: note %q, want none", n)
	}
	want := "update's lock_wake_cost lowers its row locks' cap: a release that finds n waiters keeps its row locked n x 15µs longer, so a row whose releases find n waiters takes at most 1/(2.4ms + n x 15µs) of its writes a second, not 1/2.4ms (349 with its 32 clients on one row, 31 waiters at each release); the figures ignore it, as they ignore row locks"
	if n := note("lock_wake_cost = \"15us\"\n"); n != want {
		t.Errorf("note %q, want %q", n, want)
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

// TestLockKeys: [[streams]] lock and lock_timeout, declared here, resolve into the
// stream's StreamSpec.Lock and LockTimeout (a bare lock is constant) as the stream is
// resolved, so that a closed loop's cycle counts the hold; each bad value is reported at
// its dotted key, a misspelt key with a suggestion, and a stream that replays a log refuses
// both, as docs/scenario.md's row for trace says.
func TestLockKeys(t *testing.T) {
	s, probs := mechtest.Resolve(t, "lock = \"0.5ms\"\nlock_timeout = \"20ms\"\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if w := s.Streams[0]; w.Lock != (sim.Delay{Kind: sim.Constant, Mean: 500 * sim.Microsecond, CV: 0.5}) || w.LockTimeout != 20*sim.Millisecond {
		t.Errorf("lock %+v, timeout %v; want a constant 0.5 ms, 20 ms", w.Lock, w.LockTimeout)
	}
	s, probs = mechtest.Resolve(t, "\n[[streams]]\nname = \"c\"\nop = \"write\"\nclients = 10\nthink = \"8ms\"\ncost = \"1ms\"\nlock = { dist = \"exponential\", mean = \"1ms\" }\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if c := s.Streams[1]; c.Lock.Kind != sim.Exponential || len(c.Schedule) != 1 || math.Abs(c.Schedule[0].Rate-1000) > 1e-9 {
		t.Errorf("lock %+v, closed-loop schedule %v; want an exponential lock and 10 clients / (8 + 1 + 1 ms) = 1,000/s", c.Lock, c.Schedule)
	}
	const trace = "\n[[streams]]\nname = \"log\"\ntrace = { path = \"log.csv\" }\ncost = \"1ms\"\nlock = \"1ms\"\nlock_timeout = \"5ms\"\n"
	for _, c := range []struct{ extra, want string }{
		{"lock = \"0s\"\n", `streams[0].lock: must be positive (got "0s")`},
		{"lock = \"2h\"\n", `streams[0].lock: must be at most 1h (got "2h")`},
		{"lock = { dist = \"constant\", mean = \"1ms\", cv = 2.0 }\n", `streams[0].lock.cv: applies only to dist = "lognormal"`},
		{"lock = 5\n", `streams[0].lock: must be a duration such as "0.5ms", or a table { dist = "constant" | "exponential" | "lognormal", mean = "0.5ms", cv = 1 } (got integer 5)`},
		{"lock_timeout = \"5ms\"\n", `streams[0].lock_timeout: applies only to a stream with a lock`},
		{"lock = \"1ms\"\nlock_timeout = \"2d\"\n", `streams[0].lock_timeout: must be at most 1d (got "2d")`},
		{"lock = \"1ms\"\nlock_timeout = \"0s\"\n", `streams[0].lock_timeout: must be positive (got "0s")`},
		{"lok = \"1ms\"\n", `streams[0].lok: unknown key; did you mean "lock"?`},
		{"\n[[streams]]\nname = \"r\"\nop = \"read\"\nrate = 1\ncost = \"1ms\"\nlock = \"1ms\"\n", `streams[1].lock: applies only to op = "write": reads and scans take no row locks`},
		{trace, `streams[1].lock: a trace stream replays its log as it is: remove lock`},
		{trace, `streams[1].lock_timeout: a trace stream replays its log as it is: remove lock_timeout`},
		{"lock = \"1ms\"\n[[indexes]]\nname = \"by_id\"\nkey = [\"id\"]\nshards = 2\n", `streams[0].lock: not with [[indexes]]: a write's lock would be taken on each index's shard as well`},
	} {
		_, probs := mechtest.Resolve(t, c.extra)
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
	doc, err := os.ReadFile("../../docs/scenario.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "| `trace` |") && !(strings.Contains(l, "`lock`") && strings.Contains(l, "`lock_timeout`")) {
			t.Errorf("docs/scenario.md's trace row does not say that a trace stream refuses lock and lock_timeout")
		}
	}
}
