// Package queue is a job queue's claims, whole: their keys ([[streams]] claim, skip_locked),
// their checks and the resolver that turns them into JobClaims (keys.go); their engine side
// (queue.go), a sim.Setting that asks row locks (mechanisms/locks) only which row a
// claiming write locks (locks.ChooseRows); and their tests: the closed forms (the
// machine-repairman model for a queue's head, Little's law under SKIP LOCKED) and the
// transcript of their story (testdata). docs/mitigations.md ("Job queues") says what they
// model.
package queue

import (
	"fmt"

	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// A job queue's keys ([[streams]] claim, skip_locked: docs/mitigations.md, "Job queues"),
// their checks, and the setting they turn into (JobClaims).

var (
	claimKey = scenario.StreamKey[string]("claim", "none",
		"`\"oldest\"`: each write is a worker's claim on a job queue (`SELECT ... ORDER BY created_at LIMIT 1 FOR UPDATE`): the partition key names the queue, and the row the claim locks is the queue's oldest job not yet taken. Needs `lock`, the time a claim holds its job's row (docs/scenario.md, \"Job queues\")")
	skipLockedKey = scenario.StreamKey[bool]("skip_locked", "`false`",
		"with `claim`: `FOR UPDATE SKIP LOCKED`, a claim takes the oldest job nobody holds instead of waiting for the head; every claiming stream of a scenario agrees on it")
)

func init() { scenario.RegisterMechanism(resolveJobClaims) }

// resolveJobClaims reads every stream's claim on a job queue and, when a stream claims,
// turns them into the setting of JobClaims, by resolved stream.
func resolveJobClaims(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	byName := map[string]Claim{}
	var first string // the first claiming stream, which the others must agree with
	for i := range f.Streams {
		key := fmt.Sprintf("streams[%d]", i)
		claim, ok := resolveJobClaim(c, key, &f.Streams[i], s)
		if !ok || claim == NoClaim {
			continue
		}
		name := f.Streams[i].Name
		if first == "" {
			first = name
		} else if claim != byName[first] {
			c.Add(key+".skip_locked", "every claim on the table's queues must agree on skip_locked: stream %q claims %s, this one %s", first, skipWords(byName[first]), skipWords(claim))
			continue
		}
		byName[name] = claim
	}
	if len(byName) == 0 {
		return
	}
	set := JobClaims{Streams: make([]Claim, len(s.Streams))}
	for i := range s.Streams {
		set.Streams[i] = byName[s.Streams[i].Name]
	}
	s.Mechanisms = append(s.Mechanisms, set)
}

// resolveJobClaim reads the claim of stream st (key: "streams[i]"), whose resolved form is
// among s.Streams; false when it has problems.
func resolveJobClaim(c *scenario.Checker, key string, st *scenario.Stream, s *scenario.Resolved) (Claim, bool) {
	mode, claims := claimKey.In(st.Ext)
	skip, skipGiven := skipLockedKey.In(st.Ext)
	if !claims {
		if skipGiven {
			c.Add(key+".skip_locked", "applies only to a stream with claim = \"oldest\" (a worker's claim of the oldest job)")
		}
		return NoClaim, !skipGiven
	}
	var ss *scenario.StreamSpec
	for i := range s.Streams {
		if s.Streams[i].Name == st.Name {
			ss = &s.Streams[i]
		}
	}
	switch {
	case mode == "":
		// Not a string: the decoder has said so.
	case mode != "oldest":
		c.Add(key+".claim", "must be \"oldest\" (got %q)", mode)
	case st.Trace != nil:
		c.Add(key+".claim", "a trace stream replays its log as it is: remove claim")
	case ss == nil:
		// The stream has problems of its own, reported at its keys.
	case ss.Op != sim.Write:
		c.Add(key+".claim", "applies only to op = \"write\": a claim locks its job's row")
	case ss.Lock.Mean <= 0:
		c.Add(key+".claim", "needs lock: how long a claim holds its job's row lock, e.g. \"5ms\"")
	default:
		if skip {
			return ClaimSkipLocked, true
		}
		return ClaimOldest, true
	}
	return NoClaim, false
}

// skipWords says whether a claim skips locked rows.
func skipWords(c Claim) string {
	if c == ClaimSkipLocked {
		return "with skip_locked"
	}
	return "without skip_locked"
}
