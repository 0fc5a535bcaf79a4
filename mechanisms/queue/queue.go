package queue

import (
	"fmt"
	"slices"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/mechanisms/locks"
	"github.com/shardsim/shardsim/sim"
)

// This file holds a job queue's claims (JobClaims): a table used as a queue, whose
// workers (usually closed-loop clients) each take the oldest job with
//
//	SELECT ... FROM job ORDER BY created_at LIMIT 1 FOR UPDATE [SKIP LOCKED]
//
// and hold its row lock (locks.RowLocks) while they claim it. A claim's partition
// key names the queue (a queue shard, or one value for the whole table), not the job: the
// row it locks is the queue's oldest job, which the claim chooses (locks.ChooseRows, all
// it asks of row locks), and only the lock it asks for differs from a plain locked write's.
//
//   - ClaimOldest, without SKIP LOCKED: every claim wants the queue's head. While one
//     holds it, the others wait for it in arrival order; when the holder commits, the job
//     is taken, the next job is the head, and the first waiter takes it. That is one FIFO
//     lock per queue, the head's, which passes at most 1/mean(hold) claims a second
//     however many workers there are (a closed system of W workers around one server:
//     the machine-repairman model, queue_test.go).
//   - ClaimSkipLocked: a claim skips the rows others hold and takes the oldest free job.
//     In the model every claim locks a job row of its own, free by construction, so it
//     never waits: the workers run in parallel until the cores bind.
//
// The queue never runs dry (a backlog of jobs, as in an incident): a claim always finds a
// job. The rows a SKIP LOCKED scan steps over cost it nothing extra.

// Claim is how a stream's writes choose the row they lock: a job queue's claims
// (JobClaims).
type Claim uint8

const (
	NoClaim         Claim = iota // the partition key names the row
	ClaimOldest                  // the queue's oldest job: its head (FOR UPDATE)
	ClaimSkipLocked              // the queue's oldest job nobody holds (FOR UPDATE SKIP LOCKED)
)

// String is the claim's name in scenario files and reports.
func (c Claim) String() string {
	switch c {
	case ClaimOldest:
		return "oldest"
	case ClaimSkipLocked:
		return "oldest, skip locked"
	}
	return "none"
}

// JobClaims turns the writes of some locked streams into claims on a job queue
// ([[streams]] claim and skip_locked: docs/mitigations.md, "Job queues"): Streams holds
// each stream's Claim, by stream index (NoClaim, or missing at the end, for a stream whose
// key names its row). Every stream it names takes row locks (locks.RowLocks, which comes
// before it in Model.Mechanisms).
type JobClaims struct {
	Streams []Claim
}

// Waiter: a claim waits as a row lock's waiter, which the estimate counts with the locks
// (compile.Work.LockWaiters): nothing more here.
func (JobClaims) Waiter() float64 { return 0 }

// Couples keeps a run with job queues on one engine: their claims, which skip the rows
// locked on every node, are not split yet.
func (JobClaims) Couples() string { return "job queues' claims are not split yet" }

// Note says what the offered loads leave out of the job queues.
func (j JobClaims) Note() string {
	if slices.Contains(j.Streams, ClaimOldest) {
		return "the figures ignore the job queue's head: a claim without SKIP LOCKED waits for its queue's oldest job, so a queue passes at most 1/lock claims a second, whatever the workers and the cores"
	}
	return "a SKIP LOCKED claim locks a job row of its own, which no other claim waits for: the row locks' cap below is one job's, not the queue's"
}

// On gives each claiming stream's row locks its claims (locks.ChooseRows), which their
// figures say (metrics.LockCounts' OwnRows and QueueHead).
func (j JobClaims) On(c sim.Core) {
	for i, mode := range j.Streams {
		if mode == NoClaim {
			continue
		}
		if !locks.ChooseRows(c, i, &claims{mode: mode, salt: c.StreamSeed(i, 6) ^ c.Seed()}) {
			panic(fmt.Sprintf("sim: stream %d claims jobs, but takes no row locks", i))
		}
	}
}

// claims is a stream's claims on its queues: its mode and, for SKIP LOCKED, the jobs it
// has taken, each a row of its own. Its zero value is a stream whose key names its row.
type claims struct {
	mode Claim
	salt uint64 // the stream's own job numbers: two streams never take the same row
	jobs uint64 // jobs taken so far
}

// Own reports that every claim locks a job of its own (SKIP LOCKED; locks.Rows).
func (c *claims) Own() bool { return c.mode == ClaimSkipLocked }

// Head reports that every claim wants the queue's head (locks.Rows).
func (c *claims) Head() bool { return c.mode == ClaimOldest }

// headTag marks the lock of a queue's head apart from a plain write's lock of the same
// partition key.
const headTag = 0x9e3779b97f4a7c15

// Row returns the lock of a write whose partition key hashes to h (locks.Rows): the key's
// own for a plain write, the queue's head for a claim without SKIP LOCKED, and a job nobody
// holds (the next of the stream's own) for a claim with it.
func (c *claims) Row(h uint64) uint64 {
	switch c.mode {
	case ClaimOldest:
		return detect.Hash64(h ^ headTag)
	case ClaimSkipLocked:
		c.jobs++
		return detect.Hash64(h ^ detect.Hash64(c.salt+c.jobs))
	}
	return h
}
