package trace

import (
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/keyspace"
)

// Sketch sizes. TopCapacity ids are monitored by Space-Saving (every key with more than
// 1/TopCapacity of the records is among them, and a monitored count overstates the truth
// by at most its Error); DistinctK hashes are kept by the KMV estimate, whose relative
// standard error is about 1/sqrt(DistinctK-2) = 1.6%.
const (
	TopCapacity = 1 << 15
	DistinctK   = detect.DistinctK
	maxRateBins = 1024
)

// A Planner routes a request to its shards, as the simulation's planners do
// (keyspace.PointPlanner).
type Planner interface {
	Plan(dst []keyspace.Visit, r *rand.Rand, fields []uint64, rowTime int64) []keyspace.Visit
}

// Design is a candidate key design to route the log's records through: planners for
// writes and point reads over a field vector of NFields fields, where key part i of the
// log goes to field PartField[i] (-1: unused) and the record's time to TimeField (-1:
// unused).
type Design struct {
	Shards  int
	NFields int
	// Order keeps the byte order of text key parts (TextOrder), as a range scheme needs;
	// otherwise a text part is hashed whole (FieldValue).
	Order       bool
	PartField   []int
	TimeField   int
	Write, Read Planner
	// Orders, set by Sample, are the text orders of the log's key parts (one per part),
	// for showing the range splits cut from the sample as text.
	Orders []TextOrder
	// Splits, for a range scheme, are its split points, each key part written as the
	// log writes it (SplitText); nil for other schemes.
	Splits [][]string
	// Slots: the key parts carry their record's Redis Cluster slot (keyspace.SlotValue),
	// for the redis_cluster scheme.
	Slots bool
}

// Config says what Analyze computes.
type Config struct {
	Top int // keys listed (default 10)
	// Design, when set, routes every record (nil: no design figures).
	Design *Design
	// Parts, when set, also describes each key part's own popularity (Keys.Parts), as
	// fit needs it to draw each part from a generator of its own.
	Parts bool
}

// Analysis is what a shard-key review reads from a log; analyze -f json prints it.
type Analysis struct {
	Format     string           `json:"format"`
	Lines      int64            `json:"lines"`
	Malformed  int64            `json:"malformed"`
	BadLines   []BadLine        `json:"malformed_lines,omitempty"`
	Records    int64            `json:"records"`
	DurationS  float64          `json:"duration_s"`
	Ops        map[string]int64 `json:"ops"`
	Reads      int64            `json:"reads"`
	Writes     int64            `json:"writes"`
	Keys       Keys             `json:"keys"`
	Rate       []RatePoint      `json:"rate"`
	RateWindow float64          `json:"rate_window_s"`
	Design     *DesignFigures   `json:"design,omitempty"`
}

// Keys describes key popularity.
type Keys struct {
	Distinct      float64 `json:"distinct"`
	DistinctExact bool    `json:"distinct_exact"`
	// DistinctRSE is the estimate's relative standard error (0 when exact).
	DistinctRSE float64  `json:"distinct_rse"`
	Top         []TopKey `json:"top"`
	// ZipfS is the exponent s of P(rank r) ∝ r^-s fitted by maximum likelihood to the
	// counts of the ZipfRanks most frequent keys (the law truncated to those ranks); ZipfKS
	// is the Kolmogorov-Smirnov distance between their counts and the fitted law.
	ZipfS     float64    `json:"zipf_s"`
	ZipfRanks int        `json:"zipf_ranks"`
	ZipfKS    float64    `json:"zipf_ks"`
	Monotonic []Monotony `json:"monotonic"`
	// Parts describes each key part alone (with Config.Parts).
	Parts []PartKeys `json:"parts,omitempty"`
}

// PartKeys describes the values of one key part: their number, the most frequent (at most
// PartTop of them) and a Zipf fit as for whole keys; Decimal says that every value is a
// decimal number (of at most 19 digits), MaxValue is the largest of them.
type PartKeys struct {
	Part          string   `json:"part"`
	Distinct      float64  `json:"distinct"`
	DistinctExact bool     `json:"distinct_exact"`
	Top           []TopKey `json:"top"`
	ZipfS         float64  `json:"zipf_s"`
	ZipfRanks     int      `json:"zipf_ranks"`
	ZipfKS        float64  `json:"zipf_ks"`
	Decimal       bool     `json:"decimal"`
	MaxValue      uint64   `json:"max_value"`
}

// PartTop is how many of a part's most frequent values PartKeys lists.
const PartTop = 64

// TopKey is one of the most frequent keys: Count overstates its records by at most Error.
// StandsOut says that the count is mostly certain (detect.StandsOut, the rule of run's key
// tables) and that its certain part, Count - Error, is above what any key the sketch does
// not track may have (its smallest count, once it is full): in a log whose keys are each
// rare the sketch fills, and its top counts are mostly its error bound.
type TopKey struct {
	Key       string  `json:"key"`
	Count     int64   `json:"count"`
	Share     float64 `json:"share"`
	Error     int64   `json:"error"`
	StandsOut bool    `json:"stands_out"`
}

// Monotony says whether a key part grows with time: Score is the rank correlation
// (Spearman's) between the record's time and the part's order value (TextOrder.Float: a
// decimal number itself, a text in its byte order) over the writes (over every record when
// writes are under 1%), on an even sample of at most rankSamples of them; Monotonic is
// |Score| >= MonotonicScore. A rank correlation asks only that the value grow with time,
// not at a steady pace: a text's order value jumps where it leaves the log's first text
// earlier (a new day of ISO-8601 times), which a linear correlation read as scatter.
type Monotony struct {
	Part      string  `json:"part"`
	Score     float64 `json:"score"`
	Monotonic bool    `json:"monotonic"`
}

// MonotonicScore is the rank correlation above which a part is called monotonic, the threshold
// MongoDB's analyzeShardKey applies to the same question.
const MonotonicScore = 0.7

// RatePoint is the mean rate of records in a window starting at TS seconds. The last
// window's rate is over the part of it before the last record; a last window the log
// covers less than half of is left out of Analysis.Rate (its records still count). A log
// whose records all share one timestamp has no rate: Analysis.Rate is empty.
type RatePoint struct {
	TS   float64 `json:"t_s"`
	PerS float64 `json:"per_s"`
}

// DesignFigures is where a candidate design sends the log's requests.
type DesignFigures struct {
	Shards []ShardShare `json:"shards"`
	// SingleShardShare is the share of requests that visit one shard; the rest scatter.
	SingleShardShare float64 `json:"single_shard_share"`
	HottestShard     int     `json:"hottest_shard"`
	// Splits are a range scheme's split points (shard i+1 begins at Splits[i]), each key
	// part as the log writes it: text keys keep their order, so the splits are text too.
	Splits [][]string `json:"splits,omitempty"`
	// HottestShare is the hottest shard's share of all shard visits.
	HottestShare float64 `json:"hottest_share"`
	MeanFanout   float64 `json:"mean_fanout"`
	// WriteSpread and ReadSpread are the spread window by window, as a cluster sees it;
	// Shards and HottestShare are totals over the whole log.
	WriteSpread WindowSpread `json:"write_spread"`
	ReadSpread  WindowSpread `json:"read_spread"`
}

// ShardShare is one shard's share of the write and of the read visits.
type ShardShare struct {
	ID         int     `json:"id"`
	WriteShare float64 `json:"write_share"`
	ReadShare  float64 `json:"read_share"`
}

// analyzer holds the sketches of one pass: each figure's state is a type of its own that
// adds a record and turns its counts into figures.
type analyzer struct {
	records, reads, writes int64
	ops                    [256]int64 // by OpCode
	keys                   keySketch  // whole keys
	parts                  []partStats
	// per key part: the order of its text values, shared by the monotonicity figures and
	// the design's fields
	orders []TextOrder
	rate   rateBins
	design *designTally // nil: no design figures
}

// keySketch counts the values of a key or of one key part: the most frequent
// (Space-Saving, with the text of each monitored value) and how many are distinct (KMV).
type keySketch struct {
	top      *detect.SpaceSaving
	slotKey  [][]byte
	distinct *detect.Distinct
}

// partStats describes one key part: whether every value is decimal and the largest, its
// correlation with time (over every record, and over the writes) and, with Config.Parts
// and more than one part, its own popularity (sketch; nil: the whole key's serves).
type partStats struct {
	notDecimal bool
	maxValue   uint64
	all, wr    rankSample
	sketch     *keySketch
}

// rateBins counts records in windows of the log's time, a second wide at first; the
// windows double in width (and halve in number) whenever the log outgrows maxRateBins of
// them, so memory stays bounded for any span.
type rateBins struct {
	bins  []int64
	width int64 // ns
	last  int64 // the last record's time, ns
}

// designTally routes every record through a candidate design and counts the shard visits
// of writes and reads, in total and window by window.
type designTally struct {
	d              *Design
	fields         []uint64
	visits         []keyspace.Visit
	rng            *rand.Rand
	wShard, rShard []int64
	wWin, rWin     *windowCounts
	single         int64 // requests that visit one shard
	visitsN        int64
}

// Analyze reads a log through and describes it, in memory fixed by the sketches (and the
// rate windows, at most maxRateBins); a record costs no allocation.
func Analyze(rd *Reader, cfg Config) (*Analysis, error) {
	a := newAnalyzer(len(rd.Names()), cfg)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		a.add(rec)
	}
	return a.result(rd, cfg), nil
}

// newAnalyzer takes all the memory an analysis of records with parts key parts needs.
func newAnalyzer(parts int, cfg Config) *analyzer {
	a := &analyzer{
		keys:   newKeySketch(),
		parts:  make([]partStats, parts),
		orders: make([]TextOrder, parts),
		rate:   rateBins{width: 1e9},
	}
	for i := range a.parts {
		a.parts[i].all, a.parts[i].wr = newRankSample(), newRankSample()
	}
	if cfg.Parts && parts > 1 {
		// With one part the whole key's sketches serve.
		for i := range a.parts {
			ks := newKeySketch()
			a.parts[i].sketch = &ks
		}
	}
	if cfg.Design != nil {
		a.design = newDesignTally(cfg.Design)
	}
	return a
}

// newKeySketch takes the memory of a key's sketches.
func newKeySketch() keySketch {
	return keySketch{top: detect.NewSpaceSaving(TopCapacity), slotKey: slotKeys(TopCapacity), distinct: detect.NewDistinct(DistinctK)}
}

// newDesignTally takes the memory of routing records through d.
func newDesignTally(d *Design) *designTally {
	return &designTally{
		d:      d,
		fields: make([]uint64, d.NFields),
		visits: make([]keyspace.Visit, 0, d.Shards),
		rng:    rand.New(rand.NewPCG(1, 0xa7a1)),
		wShard: make([]int64, d.Shards),
		rShard: make([]int64, d.Shards),
		wWin:   newWindowCounts(d.Shards),
		rWin:   newWindowCounts(d.Shards),
	}
}

// slotKeyBytes is the room each monitored key's text has before it needs its own buffer.
const slotKeyBytes = 48

// slotKeys returns n key buffers carved from one arena, so that remembering the text of a
// newly monitored key allocates nothing unless it is longer than slotKeyBytes.
func slotKeys(n int) [][]byte {
	arena := make([]byte, n*slotKeyBytes)
	out := make([][]byte, n)
	for i := range out {
		out[i] = arena[i*slotKeyBytes : i*slotKeyBytes : (i+1)*slotKeyBytes]
	}
	return out
}

// add counts one record in every figure.
func (a *analyzer) add(rec *Record) {
	a.records++
	a.ops[rec.OpCode]++
	if rec.Op == Read {
		a.reads++
	} else {
		a.writes++
	}
	a.keys.add(rec.Key, HashBytes(rec.Key))
	t := float64(rec.T)
	for i, p := range rec.Parts {
		a.parts[i].add(p, t, rec.Op, &a.orders[i])
	}
	a.rate.add(rec.T)
	if a.design != nil {
		a.design.add(rec, a.orders)
	}
}

// add counts value b, whose hash is h.
func (k *keySketch) add(b []byte, h uint64) {
	if slot, fresh := k.top.Add(h); fresh {
		k.slotKey[slot] = append(k.slotKey[slot][:0], b...)
	}
	k.distinct.Add(h)
}

// add counts the part's value p of a record of operation op at time t (ns), its order
// value read through o.
func (s *partStats) add(p []byte, t float64, op Op, o *TextOrder) {
	if v, ok := decimal(p); ok {
		s.maxValue = max(s.maxValue, v)
	} else {
		s.notDecimal = true
	}
	if s.sketch != nil {
		s.sketch.add(p, HashBytes(p))
	}
	v := o.Float(p)
	s.all.add(t, v)
	if op == Write {
		s.wr.add(t, v)
	}
}

// add counts a record at t ns.
func (r *rateBins) add(t int64) {
	for t/r.width >= maxRateBins {
		r.bins = halve(r.bins)
		r.width *= 2
	}
	b := int(t / r.width)
	for len(r.bins) <= b {
		r.bins = append(r.bins, 0)
	}
	r.bins[b]++
	r.last = t
}

// add routes rec through the design, its text parts valued through orders, and counts
// its visits.
func (t *designTally) add(rec *Record, orders []TextOrder) {
	t.setFields(rec, orders)
	pl, shards, win := t.d.Write, t.wShard, t.wWin
	if rec.Op == Read {
		pl, shards, win = t.d.Read, t.rShard, t.rWin
	}
	t.visits = pl.Plan(t.visits[:0], t.rng, t.fields, rec.T)
	if len(t.visits) == 1 {
		t.single++
	}
	for _, v := range t.visits {
		shards[v.Shard]++
		win.add(rec.T, int(v.Shard))
	}
	t.visitsN += int64(len(t.visits))
}

// setFields fills the design's field vector from rec: each used key part's value (with
// its key's slot under Design.Slots) and the record's time.
func (t *designTally) setFields(rec *Record, orders []TextOrder) {
	d := t.d
	slot := -1
	if d.Slots {
		slot = keyspace.KeySlot(rec.Key)
	}
	for i, p := range rec.Parts {
		f := d.PartField[i]
		if f < 0 {
			continue
		}
		v := partValue(d, &orders[i], p)
		if slot >= 0 {
			v = keyspace.SlotValue(slot, v)
		}
		t.fields[f] = v
	}
	if d.TimeField >= 0 {
		t.fields[d.TimeField] = uint64(rec.T)
	}
}

// result turns the counts into the analysis of the log rd read.
func (a *analyzer) result(rd *Reader, cfg Config) *Analysis {
	lines, bad := rd.Lines()
	out := &Analysis{
		Format: rd.opt.Format.String(), Lines: lines, Malformed: bad, BadLines: rd.Malformed(),
		Records: a.records, DurationS: float64(a.rate.last) / 1e9, Reads: a.reads, Writes: a.writes,
		Ops: map[string]int64{}, RateWindow: float64(a.rate.width) / 1e9, Rate: a.rate.points(),
	}
	for i, n := range a.ops {
		if n > 0 {
			out.Ops[OpNames[i]] = n
		}
	}
	out.Keys = a.keyFigures(rd.Names(), cfg)
	if a.design != nil {
		out.Design = a.design.figures(a.records)
	}
	return out
}

// points are the windows' rates (RatePoint): none when every record is at one instant (a
// count over no time is no rate; it used to read as the count over the millisecond floor
// below, 10^12/s at the mean).
func (r *rateBins) points() []RatePoint {
	if r.last == 0 {
		return nil
	}
	var out []RatePoint
	for i, n := range r.bins {
		w := float64(r.width) / 1e9
		if i == len(r.bins)-1 {
			// The last window ends with the last record: its rate is its records over the
			// part of it the log covers (at least a millisecond). A window the log covers
			// less than half of is left out, unless it is the only one: a few records just
			// past a window's edge are no rate (one record 0.1 ms into a window would
			// read as 10,000/s).
			covered := float64(r.last-int64(i)*r.width) / 1e9
			if i > 0 && covered < w/2 {
				break
			}
			w = min(max(covered, 1e-3), w)
		}
		out = append(out, RatePoint{TS: float64(int64(i)*r.width) / 1e9, PerS: float64(n) / w})
	}
	return out
}

// keyFigures describes the popularity of the keys and of their parts (names) and each
// part's monotonicity.
func (a *analyzer) keyFigures(names []string, cfg Config) Keys {
	var k Keys
	k.Distinct, k.DistinctExact = a.keys.distinct.Estimate(), a.keys.distinct.Exact()
	if !k.DistinctExact {
		k.DistinctRSE = 1 / math.Sqrt(DistinctK-2)
	}
	n := cfg.Top
	if n <= 0 {
		n = 10
	}
	var all []detect.Counter
	k.Top, all = a.keys.topKeys(n, a.records)
	k.ZipfS, k.ZipfRanks, k.ZipfKS = FitZipf(all)
	useWrites := a.writes*100 >= a.records && a.writes > 1
	for i, name := range names {
		w := &a.parts[i].all
		if useWrites {
			w = &a.parts[i].wr
		}
		s := w.corr()
		k.Monotonic = append(k.Monotonic, Monotony{Part: name, Score: s, Monotonic: math.Abs(s) >= MonotonicScore})
	}
	if cfg.Parts {
		for i, name := range names {
			k.Parts = append(k.Parts, a.partKeys(i, name))
		}
	}
	return k
}

// partKeys describes the values of key part i, called name.
func (a *analyzer) partKeys(i int, name string) PartKeys {
	s := &a.parts[i]
	sk := s.sketch
	if sk == nil {
		sk = &a.keys
	}
	pk := PartKeys{Part: name, Decimal: !s.notDecimal && a.records > 0, MaxValue: s.maxValue}
	pk.Distinct, pk.DistinctExact = sk.distinct.Estimate(), sk.distinct.Exact()
	var all []detect.Counter
	pk.Top, all = sk.topKeys(PartTop, a.records)
	pk.ZipfS, pk.ZipfRanks, pk.ZipfKS = FitZipf(all)
	return pk
}

// topKeys returns the n most frequent values, each with its share of records, and every
// counter of the sketch, largest first (for the Zipf fit).
func (k *keySketch) topKeys(n int, records int64) ([]TopKey, []detect.Counter) {
	all := k.top.Top(0)
	var out []TopKey
	for _, c := range all[:min(n, len(all))] {
		out = append(out, TopKey{Key: string(k.slotKey[c.Slot]), Count: c.Count, Error: c.Error,
			Share: float64(c.Count) / float64(max(records, 1)), StandsOut: standsOut(c, all, k.top.Len())})
	}
	return out, all
}

// standsOut is TopKey.StandsOut for counter c of a sketch whose counters, largest first,
// are all, used of TopCapacity of them.
func standsOut(c detect.Counter, all []detect.Counter, used int) bool {
	var floor int64
	if used >= TopCapacity && len(all) > 0 {
		floor = all[len(all)-1].Count
	}
	return detect.StandsOut(c.Count, c.Error) && c.Count-c.Error > floor
}

// decimal reads a part that is a decimal number of at most 19 digits.
func decimal(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// figures are where the design sent the log's records of which there were records.
func (t *designTally) figures(records int64) *DesignFigures {
	f := &DesignFigures{}
	var w, r int64
	for s := range t.wShard {
		w += t.wShard[s]
		r += t.rShard[s]
	}
	best, bestN := 0, int64(-1)
	for s := range t.wShard {
		f.Shards = append(f.Shards, ShardShare{ID: s, WriteShare: ratio(t.wShard[s], w), ReadShare: ratio(t.rShard[s], r)})
		if n := t.wShard[s] + t.rShard[s]; n > bestN {
			best, bestN = s, n
		}
	}
	f.HottestShard, f.HottestShare = best, ratio(bestN, w+r)
	f.SingleShardShare = ratio(t.single, records)
	f.MeanFanout = ratio(t.visitsN, records)
	f.WriteSpread, f.ReadSpread = t.wWin.spread(), t.rWin.spread()
	f.Splits = t.d.Splits
	return f
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Zipf fit limits: ranks whose (overstated) count is at least zipfMinCount and whose
// Space-Saving error is under a tenth of it, at most zipfMaxRanks of them, at least 3.
const (
	zipfMinCount = 30
	zipfMaxRanks = 2000
)

// FitZipf fits the exponent s of P(r) ∝ r^-s to the counts of the most frequent keys
// (counters by count, descending) by maximum likelihood on the law truncated to the ranks
// used: it maximizes l(s) = -s Σ c_r ln r - C ln Σ_{r<=R} r^-s, whose derivative falls
// with s, by bisection on [0, 8]. It returns s, the ranks used and the Kolmogorov-Smirnov
// distance between the counts and the fitted law; 0, 0, 0 when fewer than 3 ranks qualify.
func FitZipf(top []detect.Counter) (s float64, ranks int, ks float64) {
	var c []float64
	for _, t := range top {
		if t.Count < zipfMinCount || t.Error*10 > t.Count || len(c) == zipfMaxRanks {
			break
		}
		c = append(c, float64(t.Count))
	}
	if len(c) < 3 {
		return 0, 0, 0
	}
	var C, sumLn float64
	for i, x := range c {
		C += x
		sumLn += x * math.Log(float64(i+1))
	}
	// dl/ds = -Σ c_r ln r + C Σ r^-s ln r / Σ r^-s.
	deriv := func(s float64) float64 {
		var z, zl float64
		for i := range c {
			r := float64(i + 1)
			p := math.Pow(r, -s)
			z += p
			zl += p * math.Log(r)
		}
		return -sumLn + C*zl/z
	}
	lo, hi := 0.0, 8.0
	for it := 0; it < 60; it++ {
		mid := (lo + hi) / 2
		if deriv(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	s = (lo + hi) / 2
	var z float64
	for i := range c {
		z += math.Pow(float64(i+1), -s)
	}
	var ce, cf float64
	for i, x := range c {
		ce += x / C
		cf += math.Pow(float64(i+1), -s) / z
		ks = max(ks, math.Abs(ce-cf))
	}
	return s, len(c), ks
}

// SplitPart is the share of a log, its first records, whose keys a range scheme's
// splits are cut from: the keys the cluster held when the log began, as far as the log
// shows them. A key that grows with time then sends the rest of the log's new keys past
// the last split, as it would on a cluster split before the log; splits cut from the
// whole log would hand each shard a slice of the keys still to come and hide that.
const SplitPart = 0.1

// Sample returns the field vectors of the log's first records, each with its record's
// time, for cutting a range scheme's splits: the first SplitPart of the records (rounded
// up), at most n of them. It reads the log through to count its records.
func Sample(rd *Reader, d *Design, n int) ([][]uint64, []int64, error) {
	var out [][]uint64
	var times []int64
	seen := 0
	orders := make([]TextOrder, len(d.PartField))
	for {
		var rec *Record
		var err error
		k := int64(1)
		if len(out) >= n {
			// Only counting now: a row's operations at once.
			rec, k, err = rd.NextRow()
		} else {
			rec, err = rd.Next()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		seen += int(k)
		if len(out) >= n {
			continue
		}
		f := make([]uint64, d.NFields)
		for i, p := range rec.Parts {
			if pf := d.PartField[i]; pf >= 0 {
				f[pf] = partValue(d, &orders[i], p)
			} else {
				orders[i].See(p)
			}
		}
		if d.TimeField >= 0 {
			f[d.TimeField] = uint64(rec.T)
		}
		out, times = append(out, f), append(times, rec.T)
	}
	keep := min(len(out), int(math.Ceil(SplitPart*float64(seen))))
	d.Orders = orders
	return out[:keep], times[:keep], nil
}

// SplitText writes value v of log key part i as the log writes it, for showing a range
// split: a text part's order value as the text it stands for (TextOrder.Text), a number
// as itself. A part whose values were all decimal numbers has no anchor: its values are
// numbers.
func (d *Design) SplitText(i int, v uint64) string {
	if i < len(d.Orders) && d.Orders[i].set {
		return d.Orders[i].Text(v)
	}
	return strconv.FormatUint(v, 10)
}

// partValue is the field value of key part p under design d: in its text's order (o) when
// d keeps order, else FieldValue's.
func partValue(d *Design, o *TextOrder, p []byte) uint64 {
	if d.Order {
		return o.Value(p)
	}
	return FieldValue(p)
}
