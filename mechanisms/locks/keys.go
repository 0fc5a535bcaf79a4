package locks

import (
	"fmt"
	"math"
	"strings"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The row locks' keys, all of [[streams]] and all declared here: lock and lock_timeout,
// resolved as each stream is (scenario.RegisterStreamMechanism) into StreamSpec.Lock and
// LockTimeout, which the rest of the scenario reads (a closed loop's cycle, an index's
// refusal of locked writes, a job claim's need of a lock) and compile's estimates and
// explain too; and the order their waiters are granted in (lock_grant), the cost of waking
// them (lock_wake_cost) and when a write lets go (lock_release). The mechanisms' resolver
// turns them into the setting of RowLocks, by resolved stream.

var (
	lockKey = scenario.StreamKey[scenario.Dist]("lock", "none",
		"how long each write holds its row's lock (writes only), a duration (constant) or a distribution: the row locks' keys are described in [`[[streams]]`](#streams) above")
	lockTimeoutKey = scenario.StreamKey[scenario.Duration]("lock_timeout", "none (wait for ever)",
		"a write that has waited this long for its row's lock gives up and fails as a lock failure, with `lock`: the row locks' keys are described in [`[[streams]]`](#streams) above")
	lockGrantKey = scenario.StreamKey[string]("lock_grant", "`\"fifo\"`",
		"the order a row's waiters get its lock in, with `lock`: `\"fifo\"`, first come first served, or `\"random\"`, a waiter drawn uniformly among the row's waiters at each release, as PostgreSQL's waiters wake in no fixed order: the same mean wait, a wider spread (docs/mitigations.md, \"Row lock grant order\")")
	lockWakeKey = scenario.StreamKey[scenario.Duration]("lock_wake_cost", "none",
		"what a release of a row costs for each waiter it wakes, with `lock` (a duration up to 1s, e.g. `\"15us\"`): a database wakes every waiter of a row when its holder commits and all but one sleep again, so a release that finds n waiters keeps the row locked n x `lock_wake_cost` longer, holding no core, before the next holder has it; a row whose releases find n waiters serves at most 1/(mean(`lock`) + n x `lock_wake_cost`) writes a second (docs/mitigations.md, \"Row lock wake-ups\")")
)

// Bounds of the keys: waking a waiter takes microseconds, a second is already absurd; a
// hold is at most a request's cost, a wait at most a client's.
const (
	maxLockWake    = sim.Second
	maxLockHold    = sim.Hour
	maxLockTimeout = 24 * sim.Hour
)

var lockReleaseKey = scenario.StreamKey[string]("lock_release", "`\"hold\"`",
	"when a write lets its row's lock go, with `lock`: `\"hold\"`, when its hold ends, before it queues for a core; or `\"commit\"`, once the write has completed: its wait for a core, its `cost` and its node's `commit_flush` all inside the lock, as PostgreSQL holds a row until COMMIT returns (docs/mitigations.md, \"Row lock release at commit\")")

func init() {
	scenario.RegisterStreamMechanism(resolveLock)
	scenario.RegisterMechanism(resolveRowLocks)
}

// resolveLock reads a stream's lock and lock_timeout into ss; a stream that replays a log
// takes neither.
func resolveLock(c *scenario.Checker, key string, st *scenario.Stream, ss *scenario.StreamSpec) {
	lock, _ := lockKey.In(st.Ext)
	timeout, _ := lockTimeoutKey.In(st.Ext)
	if st.Trace != nil {
		for _, k := range []struct {
			name string
			set  bool
		}{{"lock", lock.Set()}, {"lock_timeout", timeout.Set()}} {
			if k.set {
				c.Add(key+"."+k.name, "a trace stream replays its log as it is: remove %s", k.name)
			}
		}
		return
	}
	if lock.Set() {
		if st.Op != scenario.OpWrite && st.Op != "" {
			c.Add(key+".lock", "applies only to op = \"write\": reads and scans take no row locks")
		} else {
			ss.Lock = c.Delay(key+".lock", lock, sim.Constant, 1, maxLockHold, "1h")
		}
	}
	if timeout.Set() {
		if !lock.Set() {
			c.Add(key+".lock_timeout", "applies only to a stream with a lock")
			return
		}
		if ss.LockTimeout = c.Duration(key+".lock_timeout", timeout, "", 1); ss.LockTimeout > maxLockTimeout {
			c.Add(key+".lock_timeout", "must be at most 1d (got %q)", timeout)
			ss.LockTimeout = 0
		}
	}
}

// locked reports whether the [[streams]] entry st takes a row lock (gives lock).
func locked(st *scenario.Stream) bool {
	lock, _ := lockKey.In(st.Ext)
	return lock.Set()
}

// resolveRowLocks turns row locks on when a resolved stream takes them.
func resolveRowLocks(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	grants, wakes, releases := lockGrants(c, f), lockWakes(c, f), lockReleases(c, f)
	var set RowLocks
	var notes []string
	for i := range s.Streams {
		ss := &s.Streams[i]
		if ss.Lock.Mean <= 0 {
			continue
		}
		if set.Streams == nil {
			set.Streams = make([]Stream, len(s.Streams))
		}
		set.Streams[i] = Stream{Hold: ss.Lock, Timeout: ss.LockTimeout, Grant: grants[ss.Name], Wake: wakes[ss.Name], Release: releases[ss.Name]}
		if w := wakes[ss.Name]; w > 0 {
			notes = append(notes, wakeNote(ss, w))
		}
	}
	if set.Streams == nil {
		return
	}
	set.Slots = lockSlots(s)
	set.note = strings.Join(notes, "; ")
	s.Mechanisms = append(s.Mechanisms, set)
}

// lockGrants reads each stream's lock_grant, by stream name (GrantFIFO when absent),
// and reports a bad value, or one on a stream without a lock, at its key.
func lockGrants(c *scenario.Checker, f *scenario.File) map[string]Grant {
	var grants map[string]Grant
	for i := range f.Streams {
		st := &f.Streams[i]
		mode, given := lockGrantKey.In(st.Ext)
		if !given {
			continue
		}
		key := fmt.Sprintf("streams[%d].lock_grant", i)
		var g Grant
		switch {
		case mode == "":
			continue // not a string: the decoder has said so
		case !locked(st):
			c.Add(key, "applies only to a stream with a lock: the order its row's waiters get the lock in (add lock = \"1ms\", or remove lock_grant)")
			continue
		case mode == "fifo":
			g = GrantFIFO
		case mode == "random":
			g = GrantRandom
		default:
			c.Add(key, "must be \"fifo\" or \"random\" (got %q)", mode)
			continue
		}
		if grants == nil {
			grants = map[string]Grant{}
		}
		grants[st.Name] = g
	}
	return grants
}

// lockWakes reads each stream's lock_wake_cost, by stream name (absent or 0: none), and
// reports a bad value, or one on a stream without a lock, at its key.
func lockWakes(c *scenario.Checker, f *scenario.File) map[string]sim.Time {
	var wakes map[string]sim.Time
	for i := range f.Streams {
		st := &f.Streams[i]
		d, given := lockWakeKey.In(st.Ext)
		if !given || !d.Set() {
			continue // absent, or not a duration: the decoder has said so
		}
		key := fmt.Sprintf("streams[%d].lock_wake_cost", i)
		if !locked(st) {
			c.Add(key, "applies only to a stream with a lock: what a release of its row costs for each waiter it wakes (add lock = \"1ms\", or remove lock_wake_cost)")
			continue
		}
		w := c.Duration(key, d, "", 0)
		if w > maxLockWake {
			c.Add(key, "must be at most 1s (got %q): waking a waiter takes microseconds", d.Text)
			continue
		}
		if w > 0 {
			if wakes == nil {
				wakes = map[string]sim.Time{}
			}
			wakes[st.Name] = w
		}
	}
	return wakes
}

// wakeNote says what explain's note on locked stream ss's cap, 1/mean(lock), leaves out
// of its wake cost w: the cap with n waiters at each release, and for a closed loop the
// cap when all its clients write one row.
func wakeNote(ss *scenario.StreamSpec, w sim.Time) string {
	hold := ss.Lock.Mean
	note := fmt.Sprintf("%s's lock_wake_cost lowers its row locks' cap: a release that finds n waiters keeps its row locked n x %s longer, so a row whose releases find n waiters takes at most 1/(%s + n x %s) of its writes a second, not 1/%s",
		ss.Name, w, hold, w, hold)
	if n := ss.Clients - 1; n > 0 {
		note += fmt.Sprintf(" (%.0f with its %d clients on one row, %d waiters at each release)", 1/(hold+sim.Time(n)*w).Seconds(), ss.Clients, n)
	}
	return note + "; the figures ignore it, as they ignore row locks"
}

// lockReleases reads each stream's lock_release, by stream name (ReleaseHold when absent),
// and reports a bad value, or one on a stream without a lock, at its key.
func lockReleases(c *scenario.Checker, f *scenario.File) map[string]Release {
	var rels map[string]Release
	for i := range f.Streams {
		st := &f.Streams[i]
		mode, given := lockReleaseKey.In(st.Ext)
		if !given {
			continue
		}
		key := fmt.Sprintf("streams[%d].lock_release", i)
		var r Release
		switch {
		case mode == "":
			continue // not a string: the decoder has said so
		case !locked(st):
			c.Add(key, "applies only to a stream with a lock: when its writes let their row's lock go (add lock = \"1ms\", or remove lock_release)")
			continue
		case mode == "hold":
			r = ReleaseHold
		case mode == "commit":
			r = ReleaseCommit
		default:
			c.Add(key, "must be \"hold\" or \"commit\" (got %q)", mode)
			continue
		}
		if rels == nil {
			rels = map[string]Release{}
		}
		rels[st.Name] = r
	}
	return rels
}

// lockSlots sizes the row-lock table (RowLocks.Slots): four times the locks held at once
// at the streams' peak rates (Little's law: rate x mean hold), so that it stays about a
// quarter full.
func lockSlots(s *scenario.Resolved) int {
	held := 0.0
	for i := range s.Streams {
		ss := &s.Streams[i]
		if ss.Lock.Mean <= 0 {
			continue
		}
		peak := 0.0
		for _, p := range ss.Schedule {
			peak = max(peak, p.Rate)
		}
		if ss.Burst != nil {
			peak *= ss.Burst.Factor
		}
		held += peak * ss.Lock.Mean.Seconds()
	}
	return int(min(4*math.Ceil(held), 1<<24))
}
