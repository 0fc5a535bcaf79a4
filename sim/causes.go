package sim

import "fmt"

// Failure causes. The core fails a request for causes of its own: a subrequest found its
// node's queue full (Rejected, which the client retries), the client stopped waiting
// (TimedOut), or the client's rate limit turned the request away (Limited). A mechanism
// that fails requests for a cause of its own registers the cause once, from its init
// (RegisterCause), and hands the Cause it gets to the Core call that fails a subrequest
// (Refuse, GiveUp); the results count the registered causes by Cause (CauseCounts), and
// the figures read them by the name the cause was registered under (CauseNamed).

// MaxCauses is how many causes the mechanisms may register.
const MaxCauses = 4

// Cause is a failure cause that a mechanism registered: its rank, which indexes the
// results' counts by cause (StreamResult.Failed, WindowLatency.Failed, ShardResult.Failed).
type Cause uint8

// failCauses is the Outcome of an attempt that failed for the Cause of rank 0: a
// registered cause's Outcome is failCauses plus its rank, above the core's own.
const failCauses = failLimited + 1

// outcome is the Outcome of an attempt that failed for c.
func (c Cause) outcome() Outcome { return failCauses + Outcome(c) }

// CauseCounts counts failed requests (a shard's: failed subrequests) by the registered
// Cause they failed for.
type CauseCounts [MaxCauses]int64

// Named is the count of the cause registered as name; 0 when none is.
func (n *CauseCounts) Named(name string) int64 {
	if c, ok := CauseNamed(name); ok {
		return n[c]
	}
	return 0
}

// Sum is the count over every cause.
func (n *CauseCounts) Sum() int64 {
	var s int64
	for _, x := range n {
		s += x
	}
	return s
}

// add adds o's counts to n.
func (n *CauseCounts) add(o *CauseCounts) {
	for c := range n {
		n[c] += o[c]
	}
}

// registeredCause is what a mechanism registered of a cause ("" for a rank nobody took).
type registeredCause struct {
	name    string
	retried bool
}

// causes are the registered causes, by rank.
var causes [MaxCauses]registeredCause

// retried has bit o set for each Outcome o whose attempt the client retries: the core's
// Rejected, and the causes registered as retried.
var retried uint16 = 1 << failRejected

// RegisterCause registers a failure cause called name at rank (0 up to MaxCauses-1), from
// a mechanism's init, and returns it; retry says that the client retries an attempt that
// failed for it, as it does one that found a full queue. The rank, not the packages' init
// order, places the cause: it indexes the results' counts, and an attempt whose subrequests
// failed for several causes failed for the highest ranked of them, every registered cause
// above the core's Rejected. Mechanisms that fail requests for the same cause register it
// alike and get the same Cause. It panics on a rank out of range, or on a rank or a name
// registered otherwise before.
func RegisterCause(rank int, name string, retry bool) Cause {
	if rank < 0 || rank >= MaxCauses || name == "" {
		panic(fmt.Sprintf("sim: failure cause %q at rank %d: want a name, and a rank from 0 to %d", name, rank, MaxCauses-1))
	}
	want := registeredCause{name, retry}
	for r, c := range causes {
		if r == rank && c.name != "" && c != want || r != rank && c.name == name {
			panic(fmt.Sprintf("sim: failure cause %q (retried %v) at rank %d: %q (retried %v) is registered at rank %d", name, retry, rank, c.name, c.retried, r))
		}
	}
	causes[rank] = want
	c := Cause(rank)
	if retry {
		retried |= 1 << c.outcome()
	}
	return c
}

// CauseNamed is the cause registered as name; ok is false when none is.
func CauseNamed(name string) (c Cause, ok bool) {
	for r, x := range causes {
		if x.name == name {
			return Cause(r), true
		}
	}
	return 0, false
}

// String is the name c was registered under; "" for a rank nobody registered.
func (c Cause) String() string { return causes[c].name }

// retries reports whether the client retries an attempt that failed for fail.
func retries(fail Outcome) bool { return retried>>fail&1 != 0 }
