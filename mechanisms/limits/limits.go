// Package limits is partition limits (docs/mitigations.md, "Partition throughput limits"):
// per-partition token buckets of write and read units in the manner of DynamoDB, refilled
// at each partition's share of the table's capacity and banking Burst of it, with adaptive
// capacity that lets a partition borrow the table's unused units up to its maximum. Its
// keys ([keyspace.limits]) are resolved in scenario (keys.go says which); its engine side
// is a sim.Setting that may refuse a subrequest as it reaches its node (sim.SubAdmit),
// which then fails throttled (sim.Core.Refuse, for the cause Throttled).
package limits

import (
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// Throttled is the failure cause of a request a partition's limit turned away
// (sim.RegisterCause): the client retries it, as DynamoDB's SDKs retry
// ProvisionedThroughputExceeded, and the figures read it as "throttled". A global
// secondary index's partitions throttle for it too (mechanisms/index registers it alike).
var Throttled = sim.RegisterCause(causeRank, "throttled", true)

// causeRank places Throttled among the registered failure causes: first, below a row
// lock's timeout (mechanisms/locks), for which an attempt that met both failed.
const causeRank = 0

// Limits is the setting of a scenario's partition limits.
type Limits struct {
	Settings scenario.PartitionLimits
}

// On gives every shard of the table, those its splits may make included, its buckets, and
// admits the subrequests that reach their nodes. The shards of a mechanism's own (a global
// secondary index's, sim.Core.AddShards) have none: their mechanism admits them.
func (l Limits) On(c sim.Core) {
	c.AdmitSubs(newState(&l.Settings, c.TableShards(), c.TableIDs()))
}

// Note is "": explain says what its figures leave out of the limits itself (compile).
func (Limits) Note() string { return "" }

// Waiter is 0: a partition limit holds nothing back, it refuses at once.
func (Limits) Waiter() float64 { return 0 }

// Couples keeps a run with partition limits on one engine: they are not split yet.
func (Limits) Couples() string { return "partition limits are not split yet" }

// state is a run's buckets, one pair (writes, reads) per shard, refilled continuously and
// kept lazily: a bucket's level is brought up to date only when a subrequest asks it for
// units.
type state struct {
	cfg   *scenario.PartitionLimits
	write []bucket // share buckets: refill at the partition's share, bank Burst of it
	read  []bucket
	// With Adaptive, a partition past its share borrows the table's unused capacity (the
	// table buckets) up to the per-partition maximum (the cap buckets).
	capW, capR     []bucket
	tableW, tableR bucket
}

// bucket is a token bucket: level units now, refilled at rate units per second up to size.
type bucket struct {
	level, rate, size float64
	last              sim.Time
}

func (b *bucket) fill(now sim.Time) {
	if now > b.last {
		b.level = min(b.size, b.level+b.rate*float64(now-b.last)/float64(sim.Second))
		b.last = now
	}
}

// newBucket returns a full bucket that banks seconds of its rate; at least one second's, so
// that a subrequest reading many partitions at once can pass.
func newBucket(rate, seconds float64) bucket {
	size := max(rate*max(seconds, 1), 1)
	return bucket{level: size, rate: rate, size: size}
}

// newState gives the table's shards (of which there are shards at the start, and
// maxShards ids in all) their buckets: each partition's share is the table's capacity
// over the initial shards, at most its maximum.
func newState(cfg *scenario.PartitionLimits, shards, maxShards int) *state {
	tw, tr := cfg.TableWriteUnits, cfg.TableReadUnits
	if tw <= 0 {
		tw = cfg.WriteUnits * float64(shards)
	}
	if tr <= 0 {
		tr = cfg.ReadUnits * float64(shards)
	}
	shareW := min(cfg.WriteUnits, tw/float64(shards))
	shareR := min(cfg.ReadUnits, tr/float64(shards))
	burst := cfg.Burst.Seconds()
	p := &state{cfg: cfg, write: make([]bucket, maxShards), read: make([]bucket, maxShards)}
	for s := range maxShards {
		p.write[s] = newBucket(shareW, burst)
		p.read[s] = newBucket(shareR, burst)
		if b := cfg.BurstInitial; b != nil {
			p.write[s].level = min(p.write[s].size, shareW*b.Seconds())
			p.read[s].level = min(p.read[s].size, shareR*b.Seconds())
		}
	}
	if cfg.Adaptive {
		p.capW, p.capR = make([]bucket, maxShards), make([]bucket, maxShards)
		for s := range maxShards {
			p.capW[s] = newBucket(cfg.WriteUnits, 1)
			p.capR[s] = newBucket(cfg.ReadUnits, 1)
		}
		p.tableW, p.tableR = newBucket(tw, 1), newBucket(tr, 1)
	}
	return p
}

// Admit takes units for subrequest si of the table, which reached its node at now: one a
// partition it reads or writes, from its shard's bucket of writes or of reads. A
// subrequest whose partition has none to give is throttled.
func (p *state) Admit(c sim.Core, now sim.Time, si int32) bool {
	sh := int(c.SubShard(si))
	if sh >= len(p.write) || p.admit(now, sh, c.SubWrite(si), float64(c.SubParts(si))) {
		return true // a mechanism's own shard, or units to give
	}
	c.Refuse(now, si, Throttled)
	return false
}

// admit takes units for a subrequest on shard s at now; it reports false when the
// partition has none to give.
func (p *state) admit(now sim.Time, s int, write bool, units float64) bool {
	share, capb, table := &p.read[s], (*bucket)(nil), &p.tableR
	if write {
		share, table = &p.write[s], &p.tableW
	}
	share.fill(now)
	if !p.cfg.Adaptive {
		if share.level >= units {
			share.level -= units
			return true
		}
		return false
	}
	if write {
		capb = &p.capW[s]
	} else {
		capb = &p.capR[s]
	}
	capb.fill(now)
	table.fill(now)
	switch {
	case share.level >= units:
		share.level -= units
	case capb.level >= units && table.level >= units:
		// Past its share: the partition borrows unused table capacity, within its maximum.
	default:
		return false
	}
	capb.level = max(capb.level-units, 0)
	table.level = max(table.level-units, 0)
	return true
}
