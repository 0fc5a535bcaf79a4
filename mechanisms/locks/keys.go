package locks

import (
	"math"

	"github.com/shardsim/shardsim/scenario"
)

// The row locks' resolver: it turns the resolved streams' locks ([[streams]] lock,
// lock_timeout, which scenario declares and resolves: the closed loop's cycle and compile's
// estimates read them there) into the setting of RowLocks, by resolved stream.

func init() { scenario.RegisterMechanism(resolveRowLocks) }

// resolveRowLocks turns row locks on when a resolved stream takes them.
func resolveRowLocks(_ *scenario.Checker, _ *scenario.File, s *scenario.Resolved) {
	var set RowLocks
	for i := range s.Streams {
		ss := &s.Streams[i]
		if ss.Lock.Mean <= 0 {
			continue
		}
		if set.Streams == nil {
			set.Streams = make([]Stream, len(s.Streams))
		}
		set.Streams[i] = Stream{Hold: ss.Lock, Timeout: ss.LockTimeout}
	}
	if set.Streams == nil {
		return
	}
	set.Slots = lockSlots(s)
	s.Mechanisms = append(s.Mechanisms, set)
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
