package spec

import "github.com/shardsim/shardsim/sim"

// resolveClaim reads a write stream's claim on a job queue (claim, skip_locked), after its
// lock; s.Streams holds the streams read before it, whose claims it must agree with.
func resolveClaim(c *checker, key string, st Stream, s *Resolved, ss *StreamSpec) {
	if st.SkipLocked != nil && st.Claim == "" {
		c.add(key+".skip_locked", "applies only to a stream with claim = \"oldest\" (a worker's claim of the oldest job)")
	}
	if st.Claim == "" {
		return
	}
	if oneOf(c, key+".claim", st.Claim, "", "oldest") == "" {
		return
	}
	switch {
	case st.Op != OpWrite && st.Op != "":
		c.add(key+".claim", "applies only to op = \"write\": a claim locks its job's row")
		return
	case !st.Lock.Set():
		c.add(key+".claim", "needs lock: how long a claim holds its job's row lock, e.g. \"5ms\"")
		return
	}
	ss.Claim = sim.ClaimOldest
	if st.SkipLocked != nil && *st.SkipLocked {
		ss.Claim = sim.ClaimSkipLocked
	}
	// A claim without SKIP LOCKED waits for the head, even one a SKIP LOCKED claim holds;
	// the model keeps the two apart, so a table's claims must all be one or the other.
	for _, o := range s.Streams {
		if o.Claim != sim.NoClaim && o.Claim != ss.Claim {
			c.add(key+".skip_locked", "every claim on the table's queues must agree on skip_locked: stream %q claims %s, this one %s", o.Name, skipWords(o.Claim), skipWords(ss.Claim))
			return
		}
	}
}

// skipWords says whether a claim skips locked rows.
func skipWords(c sim.Claim) string {
	if c == sim.ClaimSkipLocked {
		return "with skip_locked"
	}
	return "without skip_locked"
}
