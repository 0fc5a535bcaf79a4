package sim

import (
	"math"
	"math/rand/v2"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/keyspace"
)

// streamDetect gathers what detection needs about one stream's keys, in memory bounded by
// Model.Detect: the most requested keys (a Space-Saving sketch), for writes the partitions
// written most and how many there are, and the latencies of a sample of requests by key.
type streamDetect struct {
	nf      int // key fields
	topK    int
	keys    *detect.SpaceSaving
	keyVals []uint64 // nf values per sketch slot
	keyShrd []int32

	parts    *detect.SpaceSaving // writes only
	partKeys []keyspace.Key
	partShrd []int32
	distinct *detect.Distinct

	lat     *detect.KeyStats
	latVals []uint64
	latShrd []int32
	pending pool[[keyspace.MaxParts]uint64] // key values of sampled requests in flight
	every   float64
	logq    float64 // log(1 - 1/every), for the geometric gaps
	skip    int64   // requests until the next sample
	sampled int64
	// partSampled counts the sampled requests whose partition was counted: all of them
	// until a migration changes how the stream plans (stopParts).
	partSampled int64
}

func newStreamDetect(m *Model, s *Stream) *streamDetect {
	if len(s.KeyFields) == 0 || len(s.KeyFields) > keyspace.MaxParts {
		return nil
	}
	cfg := m.Detect
	topK := cfg.TopK
	if topK <= 0 {
		topK = detect.DefaultTopK
	}
	every := cfg.SampleEvery
	if every <= 0 {
		every = detect.DefaultSampleEvery
	}
	maxKeys := cfg.MaxKeys
	if maxKeys <= 0 {
		maxKeys = detect.DefaultMaxKeys
	}
	nf := len(s.KeyFields)
	// Space-Saving keeps every key whose share is above 1/capacity; 25 counters per
	// reported key find the true top 10 of a Zipf(0.99) sample (detect's test), 8 did not.
	capacity := max(25*topK, 256)
	d := &streamDetect{nf: nf, topK: topK, keys: detect.NewSpaceSaving(capacity),
		keyVals: make([]uint64, nf*capacity), keyShrd: make([]int32, capacity),
		lat: detect.NewKeyStats(maxKeys), every: float64(every), logq: math.Log1p(-1 / float64(every)), skip: 1,
		latVals: make([]uint64, 0, nf*maxKeys), latShrd: make([]int32, 0, maxKeys)}
	if s.Op == Write {
		d.parts = detect.NewSpaceSaving(capacity)
		d.partKeys = make([]keyspace.Key, capacity)
		d.partShrd = make([]int32, capacity)
		d.distinct = detect.NewDistinct(detect.DistinctK)
	}
	return d
}

// keyID is the identity of the row a point request names: a hash of its key fields.
func keyID(st *streamState) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, f := range st.s.KeyFields {
		h = detect.Hash64(h ^ st.fields[f])
	}
	return h
}

// observe counts request ri, just planned and picked by the sampler (arrive counts down
// skip), in its stream's detection sketches. Detection looks at a sample, as a production client sampling one
// request in N at random would: gaps between samples are geometric with mean N, so each
// request is picked with probability 1/N, independently; aux draws the gaps. Sampling
// keeps the cost of detection to a few nanoseconds per request.
func (t *slotTable) observe(st *streamState, ri int32, aux *rand.Rand) {
	d := st.det
	r := &t.reqs.items[ri]
	d.skip = 1
	if d.every > 1 {
		d.skip += int64(math.Log(1-aux.Float64()) / d.logq)
	}
	if !st.needKey {
		t.setKey(ri, keyID(st))
	}
	key := t.keys[ri]
	shard := int32(-1)
	if len(st.visits) > 0 {
		shard = st.visits[0].Shard
	}
	slot, fresh := d.keys.Add(key)
	if fresh {
		v := d.keyVals[slot*d.nf : (slot+1)*d.nf]
		for i, f := range st.s.KeyFields {
			v[i] = st.fields[f]
		}
	}
	d.keyShrd[slot] = shard
	if d.parts != nil && st.point != nil {
		k := st.point.LastKey()
		h := k.Hash()
		slot, fresh := d.parts.Add(h)
		if fresh {
			d.partKeys[slot] = *k
		}
		d.partShrd[slot] = shard
		d.distinct.Add(h)
		d.partSampled++
	}
	r.sampled = true
	d.sampled++
	pi := d.pending.take()
	v := &d.pending.items[pi]
	for i, f := range st.s.KeyFields {
		v[i] = st.fields[f]
	}
	for int(ri) >= len(t.samples) {
		t.samples = append(t.samples, 0)
	}
	t.samples[ri] = pi
}

// sample records the latency of sampled request ri, which succeeded.
func (t *slotTable) sample(st *streamState, ri int32, r *request, lat Time) {
	d := st.det
	d.addLatency(t.keys[ri], lat, r.shard, &d.pending.items[t.samples[ri]])
}

// addLatency adds the latency of a sampled request of key identity key, whose first visit
// was to shard and whose key values are v, to the per-key statistics.
func (d *streamDetect) addLatency(key uint64, lat Time, shard int32, v *[keyspace.MaxParts]uint64) {
	if slot, fresh, ok := d.lat.Add(key, float64(lat)); ok {
		if fresh {
			d.latVals = append(d.latVals, v[:d.nf]...)
			d.latShrd = append(d.latShrd, shard)
		}
		d.latShrd[slot] = shard
	}
}

// unsample frees the key values sampled request ri kept.
func (t *slotTable) unsample(d *streamDetect, ri int32, r *request) {
	if r.sampled {
		d.pending.put(t.samples[ri])
		r.sampled = false
	}
}

// report puts the stream's detection figures into out.
func (d *streamDetect) report(out *StreamResult) {
	for _, c := range d.keys.Top(d.topK) {
		out.HotKeys = append(out.HotKeys, KeyCount{
			Values: append([]uint64(nil), d.keyVals[c.Slot*d.nf:(c.Slot+1)*d.nf]...),
			Count:  c.Count, Error: c.Error, Shard: int(d.keyShrd[c.Slot]),
		})
	}
	if d.parts != nil {
		for _, c := range d.parts.Top(d.topK) {
			out.HotPartitions = append(out.HotPartitions, KeyCount{
				Values: append([]uint64(nil), d.partKeys[c.Slot].Parts()...),
				Count:  c.Count, Error: c.Error, Shard: int(d.partShrd[c.Slot]),
			})
		}
		out.PartitionsWritten = int64(math.Round(d.distinct.Estimate()))
	}
	vals := append([]uint64(nil), d.latVals...) // one backing array for all the keys
	out.KeyLatencies = make([]KeyLatency, d.lat.Len())
	for slot := range out.KeyLatencies {
		_, n, sum := d.lat.At(slot)
		out.KeyLatencies[slot] = KeyLatency{
			Values:  vals[slot*d.nf : (slot+1)*d.nf : (slot+1)*d.nf],
			Samples: n, Mean: Time(sum/float64(n) + 0.5), Shard: int(d.latShrd[slot]),
		}
	}
	out.SampledRequests = d.sampled
	if out.PartitionsStopped {
		out.PartitionsCounted = d.partSampled
	}
}

// stopParts notes that stream st's partitions stop being counted at now: a migration
// (mechanisms/migrate, Core.ReplanAt) points it at a planner whose partitions are not in
// its key design. Its hot partitions then cover the sampled writes issued before now.
func (e *engine) stopParts(now Time, st *streamState) {
	if st.det == nil || st.det.parts == nil || st.point == nil || st.out.PartitionsStopped {
		return
	}
	st.out.PartitionsStopped, st.out.PartitionsUntil, st.out.PartitionsOffered = true, now, st.out.Offered
}
