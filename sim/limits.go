package sim

// partitionLimits are the per-partition token buckets of Model.Limits, one pair (writes,
// reads) per shard, refilled continuously and kept lazily: a bucket's level is brought up
// to date only when a subrequest asks it for units.
type partitionLimits struct {
	cfg   *PartitionLimits
	write []bucket // share buckets: refill at the partition's share, bank Burst of it
	read  []bucket
	// With Adaptive, a partition past its share borrows the table's unused capacity (the
	// table buckets) up to the per-partition maximum (the cap buckets).
	capW, capR     []bucket
	tableW, tableR bucket
	throttled      []int // last window in which each shard throttled, -1 if none
	streak         []int // consecutive windows with throttling, up to that window
}

// bucket is a token bucket: level units now, refilled at rate units per second up to size.
type bucket struct {
	level, rate, size float64
	last              Time
}

func (b *bucket) fill(now Time) {
	if now > b.last {
		b.level = min(b.size, b.level+b.rate*float64(now-b.last)/float64(Second))
		b.last = now
	}
}

// newBucket returns a full bucket that banks seconds of its rate; at least one second's, so
// that a subrequest reading many partitions at once can pass.
func newBucket(rate, seconds float64) bucket {
	size := max(rate*max(seconds, 1), 1)
	return bucket{level: size, rate: rate, size: size}
}

func newPartitionLimits(cfg *PartitionLimits, shards, maxShards int) *partitionLimits {
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
	p := &partitionLimits{cfg: cfg, write: make([]bucket, maxShards), read: make([]bucket, maxShards),
		throttled: make([]int, maxShards), streak: make([]int, maxShards)}
	for s := range maxShards {
		p.write[s] = newBucket(shareW, burst)
		p.read[s] = newBucket(shareR, burst)
		if b := cfg.BurstInitial; b != nil {
			p.write[s].level = min(p.write[s].size, shareW*b.Seconds())
			p.read[s].level = min(p.read[s].size, shareR*b.Seconds())
		}
		p.throttled[s] = -1
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

// admit takes units for a subrequest on shard s at now; it reports false when the
// partition has none to give, and the subrequest is throttled.
func (p *partitionLimits) admit(now Time, s int, write bool, units float64) bool {
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

// limitRefused handles subrequest si, which a partition limit refused as it reached its
// node at now: counted against its shard, it fails.
func (e *engine) limitRefused(now Time, si int32) {
	sub := &e.subs.items[si]
	if now >= e.m.Warmup {
		e.res.Shards[sub.shard].Throttled++
	}
	if sub.req <= soloReq {
		e.promote(now, si)
	}
	e.throttled(now, si)
}

// throttled fails subrequest si, which a partition limit refused at now.
func (e *engine) throttled(now Time, si int32) {
	sub := e.subs.items[si]
	e.subs.put(si)
	p := e.limits
	if w := e.window(now); w >= 0 && p.throttled[sub.shard] != w {
		if p.throttled[sub.shard] == w-1 {
			p.streak[sub.shard]++
		} else {
			p.streak[sub.shard] = 1
		}
		p.throttled[sub.shard] = w
	}
	e.subEnd(sub.req, int32(sub.attempt), now, failThrottled)
}
