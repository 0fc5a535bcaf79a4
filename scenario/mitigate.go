package scenario

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// This file validates the mitigation and detection sections of a scenario
// (docs/mitigations.md, docs/detection.md): the cache, client timeouts, retries and
// rate limits, the settings of partition limits and automatic splits (whose keys are their
// folders', mechanisms/limits and mechanisms/split), hot-key copies, timed actions (each
// changes a setting of a mechanism's, ActionSetting, which checks it) and [detect].

// Defaults and limits of the mitigation keys, documented in docs/scenario.md.
const (
	defaultBackoff       = "10ms"
	defaultBackoffMax    = "1s"
	maxRetries           = 10
	maxClientBurst       = 1_000_000_000
	minLimitRate         = 0.001
	maxLimitRate         = 1e9
	maxCopies            = 64
	maxCopyKeys          = 10_000
	maxTopK              = 1000
	maxSampleEvery       = 1_000_000
	maxDetectKeys        = 1 << 22
	maxOutlierMinSamples = 1_000_000_000
	maxActions           = 10_000
)

// CopiesSpec is a validated [keyspace.copies] table.
type CopiesSpec struct {
	Field int      // the copied field
	Keys  []uint64 // its copied values, sorted
	Count int
}

// resolveClient reads a stream's timeout, retries, backoff and limit.
func resolveClient(c *checker, key string, st Stream) sim.Client {
	var cl sim.Client
	if st.Timeout.Set() {
		if cl.Timeout = c.duration(key+".timeout", st.Timeout, "", 1); cl.Timeout > maxClientWait {
			c.add(key+".timeout", "must be at most 1d (got %q)", st.Timeout)
			cl.Timeout = 0
		}
	}
	if st.Retries != nil {
		if r := *st.Retries; r < 0 || r > maxRetries {
			c.add(key+".retries", "must be between 0 and %d (got %d)", maxRetries, r)
		} else {
			cl.Retries = r
		}
	}
	backoff, backoffMax := resolveBackoff(c, key, st)
	if cl.Retries > 0 {
		cl.Backoff, cl.BackoffMax = backoff, backoffMax
	}
	if st.Limit == nil || st.Limit.Rows == nil { // a whole number is a scan's row limit
		cl.Limit = resolveLimit(c, key+".limit", st.Limit)
	}
	return cl
}

// resolveBackoff reads the wait before a stream's first retry and its cap; the default cap
// never undercuts a longer first wait.
func resolveBackoff(c *checker, key string, st Stream) (backoff, backoffMax sim.Time) {
	backoff = c.duration(key+".backoff", st.Backoff, defaultBackoff, 1)
	if backoff > maxClientWait {
		c.add(key+".backoff", "must be at most 1d (got %q)", st.Backoff)
	}
	backoffMax = c.duration(key+".backoff_max", st.BackoffMax, defaultBackoffMax, 1)
	switch {
	case backoffMax > maxClientWait:
		c.add(key+".backoff_max", "must be at most 1d (got %q)", st.BackoffMax)
	case !st.BackoffMax.Set() && backoffMax < backoff:
		backoffMax = backoff
	case backoff > 0 && backoffMax > 0 && backoffMax < backoff:
		c.add(key+".backoff_max", "must be at least backoff = %q (got %q)", orDefault(st.Backoff.Text, defaultBackoff), st.BackoffMax)
	}
	return backoff, backoffMax
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// resolveLimit validates a token bucket; nil when l is nil or invalid.
func resolveLimit(c *checker, key string, l *Limit) *sim.Limit {
	if l == nil {
		return nil
	}
	before := len(c.probs)
	out := &sim.Limit{Burst: 1}
	switch {
	case l.Rate == nil:
		c.add(key+".rate", "required: the requests per second the client lets through, e.g. 1000")
	case !(*l.Rate >= minLimitRate && *l.Rate <= maxLimitRate):
		// The bucket keeps the interval between tokens in integer nanoseconds.
		c.add(key+".rate", "must be between %g and %g requests per second (got %v)", minLimitRate, maxLimitRate, *l.Rate)
	default:
		out.Rate = *l.Rate
	}
	if l.Burst != nil {
		if b := *l.Burst; b < 1 || b > maxClientBurst {
			c.add(key+".burst", "must be between 1 and %d tokens (got %d)", maxClientBurst, b)
		} else {
			out.Burst = b
		}
	}
	out.Queue = oneOf(c, key+".overflow", string(l.Overflow), "reject", "reject", "queue") == "queue"
	if len(c.probs) > before {
		return nil
	}
	return out
}

// StreamIndex is the index of the stream called name among s.Streams, or -1.
func (s *Resolved) StreamIndex(name string) int { return s.streamIndex(name) }

func (s *Resolved) streamIndex(name string) int {
	return slices.IndexFunc(s.Streams, func(ss StreamSpec) bool { return ss.Name == name })
}

// StreamNames are the streams' names, quoted, for a message.
func (s *Resolved) StreamNames() []string { return s.streamNames() }

func (s *Resolved) streamNames() []string {
	names := make([]string, len(s.Streams))
	for i, ss := range s.Streams {
		names[i] = ss.Name
	}
	return quoteAll(names)
}

// PartitionLimits are per-partition throughput limits in the manner of DynamoDB
// (mechanisms/limits): each shard may serve WriteUnits write subrequests and ReadUnits read
// partitions per second (one unit per partition read), and banks up to Burst of unused
// capacity. A subrequest over the limit is throttled: rejected at once, and retried where
// the client retries.
type PartitionLimits struct {
	WriteUnits, ReadUnits float64
	// TableWriteUnits and TableReadUnits are the table's provisioned capacity; each
	// partition's share is the table's divided by the shards (at most the per-partition
	// maximum). 0: the per-partition maximum times the shards.
	TableWriteUnits, TableReadUnits float64
	// Burst is how much unused capacity a partition banks, as time at its rate (DynamoDB:
	// 300 s). Banks start full unless BurstInitial is set.
	Burst sim.Time
	// BurstInitial, when set, is what each partition's share bank holds at t = 0, as time
	// at its rate (capped at the bank's size): 0 starts every bank empty, as a new
	// table's or one that has just run flat out. nil: full.
	BurstInitial *sim.Time
	// Adaptive lets a partition go past its share, up to the per-partition maximum, while
	// the table as a whole stays within its provisioned capacity.
	Adaptive bool
	// SplitForHeat splits a partition that was throttled in two consecutive windows
	// (SplitPolicy.Throttled).
	SplitForHeat bool
}

// SplitPolicy is automatic splits' settings ([keyspace.split], and split_for_heat of
// [keyspace.limits]), which mechanisms/split resolves (it is a field of Resolved, read by
// the rest of the scenario and by compile) and carries out: shards split while the run goes
// on (range scheme: at the median of the shard's recent keys; hash schemes: at the median
// of their hashes). The new shard takes the upper half and, after Move, is served by the
// node with the least load in the last window; until then by its parent's node.
type SplitPolicy struct {
	Rows int64   // split a shard once it has gained this many rows (0: never)
	Load float64 // split a shard whose load stays above this fraction for a window (0: never)
	// Move is the delay before the new shard is moved to its own node. The most shards
	// there can be is Resolved.MaxShards, the bound of the splitter the model routes through.
	Move sim.Time
	// Throttled splits a shard throttled (sim.Core.Refuse: a partition limit,
	// mechanisms/limits) in two windows running, at the end of the second.
	Throttled bool
}

// resolveCopies reads [keyspace.copies], after the key.
func resolveCopies(c *checker, f *File, s *Resolved) {
	cp := f.Keyspace.Copies
	if cp == nil {
		return
	}
	const key = "keyspace.copies"
	before := len(c.probs)
	cs := &CopiesSpec{Field: -1}
	switch {
	case cp.Count == nil:
		c.add(key+".count", "required: how many copies each hot key is spread over, 2 to %d", maxCopies)
	case *cp.Count < 2 || *cp.Count > maxCopies:
		c.add(key+".count", "must be between 2 and %d (got %d)", maxCopies, *cp.Count)
	default:
		cs.Count = *cp.Count
	}
	cs.Field = copiesField(c, key, cp.Field, s)
	parts := len(s.Parts) + 1
	if keyspace.Salted(s.Salt) {
		parts++
	}
	if len(s.Parts) > 0 && parts > keyspace.MaxParts {
		c.add(key, "copies add a part to the key, which would have %d parts (salt included); at most %d are allowed", parts, keyspace.MaxParts)
	}
	cs.Keys = copiesValues(c, key, cp, s, cs.Field)
	if len(c.probs) > before || cs.Field < 0 {
		return
	}
	slices.Sort(cs.Keys)
	s.Copies = cs
}

// copiesValues reads the copied values of field fi: listed (keys), or its top most
// popular ones.
func copiesValues(c *checker, key string, cp *Copies, s *Resolved, fi int) []uint64 {
	switch {
	case cp.Keys != nil && cp.Top != nil:
		c.add(key, "give keys or top, not both")
	case cp.Keys == nil && cp.Top == nil:
		c.add(key, "required: keys = [...] (the copied values) or top = N (the field's N most popular values)")
	case fi < 0:
		// The field is wrong: its values cannot be checked.
	case cp.Keys != nil:
		return copiedKeys(c, key, cp.Keys, s, fi)
	case *cp.Top < 1 || *cp.Top > maxCopyKeys:
		c.add(key+".top", "must be between 1 and %d (got %d)", maxCopyKeys, *cp.Top)
	default:
		ids, err := topIDs(s.Fields[fi], *cp.Top)
		if err != nil {
			c.add(key+".top", "%v", err)
		}
		return ids
	}
	return nil
}

// copiesField returns the key field whose values are copied: the one named, or the key's
// first plain field part; -1 when there is none.
func copiesField(c *checker, key, name string, s *Resolved) int {
	if name == "" {
		for _, p := range s.Parts {
			if p.Kind == keyspace.FieldPart {
				return p.Field
			}
		}
		if len(s.Parts) > 0 {
			c.add(key+".field", "required: keyspace.key has no plain field part whose values could be copied")
		}
		return -1
	}
	fi := s.fieldIndex(name)
	switch {
	case fi < 0:
		c.add(key+".field", "no such field %q in table.fields", name)
	case !slices.ContainsFunc(s.Parts, func(p keyspace.Part) bool { return p.Kind == keyspace.FieldPart && p.Field == fi }):
		c.add(key+".field", "%q must be a plain part of keyspace.key (have %s)", name, strings.Join(quoteAll(s.Key), ", "))
	default:
		return fi
	}
	return -1
}

// copiedKeys reads the listed values of field fi that are copied.
func copiedKeys(c *checker, key string, keys []Scalar, s *Resolved, fi int) []uint64 {
	fs, name := s.Fields[fi], s.FieldNames[fi]
	if len(keys) == 0 || len(keys) > maxCopyKeys {
		c.add(key+".keys", "must list between 1 and %d values (got %d)", maxCopyKeys, len(keys))
		return nil
	}
	var out []uint64
	seen := map[uint64]bool{}
	for i, v := range keys {
		vk := fmt.Sprintf("%s.keys[%d]", key, i)
		val, ok := fieldValue(fs, v)
		switch {
		case !ok:
			c.add(vk, "%v is not a value of field %q (%s)", v, name, describeValues(fs))
		case seen[val]:
			c.add(vk, "value %v is listed twice", v)
		default:
			seen[val] = true
			out = append(out, val)
		}
	}
	return out
}

// topIDs returns the n most popular values of a field's generator: the ids of ranks 0 to
// n-1 of a Zipf field, the first n ids of a hotspot field's hot set, the n values of a
// categorical field with the largest weights (the first listed among equal weights).
func topIDs(fs FieldSpec, n int) ([]uint64, error) {
	switch fs.Gen {
	case "zipf":
		if uint64(n) > fs.N {
			return nil, fmt.Errorf("is %d, but the field has only %d ids", n, fs.N)
		}
		z := workload.NewZipf(fs.N, fs.S, fs.Scramble)
		ids := make([]uint64, n)
		for k := range ids {
			ids[k] = z.ID(uint64(k))
		}
		return ids, nil
	case "hotspot":
		hot := workload.NewHotspot(fs.N, fs.HotFraction, fs.HotOps).HotSize()
		if hot == 0 || hot == fs.N {
			return nil, fmt.Errorf("the hotspot field's hot set is empty or everything, so no id is more popular than another (list keys instead)")
		}
		if uint64(n) > hot {
			return nil, fmt.Errorf("is %d, but the field has only %d hot ids", n, hot)
		}
		ids := make([]uint64, n)
		for k := range ids {
			ids[k] = uint64(k)
		}
		return ids, nil
	case "categorical":
		if n > fs.Count {
			return nil, fmt.Errorf("is %d, but the field has only %d values", n, fs.Count)
		}
		return topCategorical(fs, n), nil
	}
	return nil, fmt.Errorf("needs a zipf, hotspot or categorical field, whose popular values are known; this one is gen = %q (list keys instead)", fs.Gen)
}

// topCategorical returns the n values of a categorical field with the largest weights, the
// first listed among equal weights (the first n without weights).
func topCategorical(fs FieldSpec, n int) []uint64 {
	idx := make([]int, fs.Count)
	for i := range idx {
		idx[i] = i
	}
	if fs.Weights != nil {
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(fs.Weights[b], fs.Weights[a]) })
	}
	ids := make([]uint64, n)
	for k := range ids {
		ids[k] = uint64(idx[k])
	}
	return ids
}

// resolveActions reads [[actions]], after the cluster and the streams: each changes one
// setting, which the mechanism that declares it (ActionSetting) checks and resolves.
func resolveActions(c *checker, f *File, s *Resolved) {
	if len(f.Actions) > maxActions {
		c.add("actions", "at most %d actions are allowed (got %d)", maxActions, len(f.Actions))
		return
	}
	var acts []notedAction
	for i, a := range f.Actions {
		key := fmt.Sprintf("actions[%d]", i)
		before := len(c.probs)
		at, inside := actionAt(c, key, a, s)
		x, what, ok := actionSetting(c, key, a)
		if !ok {
			continue
		}
		act := ActionSpec{At: at, Setting: what}
		checkAction(c, s, key, x, &a, &act)
		switch {
		case len(c.probs) > before:
		case !inside:
			// Checked, then dropped: it never happens (docs/mitigations.md), and what its
			// mechanism would start is not part of the run.
			if x.Drop != nil {
				x.Drop(s)
			}
		default:
			acts = append(acts, notedAction{act, x, a.Note})
		}
	}
	for _, x := range actionSettings {
		if x.After != nil {
			x.After(c, s)
		}
	}
	slices.SortStableFunc(acts, func(a, b notedAction) int { return cmp.Compare(a.a.At, b.a.At) })
	if len(c.probs) > 0 {
		return // the scenario is refused; the texts would follow broken settings
	}
	// The texts say what changed, from what: follow the settings through the actions.
	nodes := slices.Clone(s.Nodes)
	for _, n := range acts {
		a := n.a
		a.Text = n.x.Text(s, nodes, &a)
		if n.note != "" {
			a.Text += " (" + n.note + ")"
		}
		s.Actions = append(s.Actions, a)
	}
}

// checkAction checks action a (at key), which changes act.Setting, a setting of x: first
// what every mechanism's settings apply to (Target), then the setting, then the keys of the
// other mechanisms' that apply only with theirs (Others).
func checkAction(c *checker, s *Resolved, key string, x ActionSetting, a *Action, act *ActionSpec) {
	for _, y := range actionSettings {
		if y.Target != nil {
			y.Target(c, s, key, act.Setting, a)
		}
	}
	x.Resolve(c, s, key, a, act)
	for _, y := range actionSettings {
		if !slices.Contains(y.Keys, act.Setting) && y.Others != nil {
			y.Others(c, key, a)
		}
	}
}

// notedAction is a valid action with what may change it and its note.
type notedAction struct {
	a    ActionSpec
	x    ActionSetting
	note string
}

// actionAt reads an action's time, from the start of the run; inside is false for an
// action at or after the end of the run, which never happens (a shortened run,
// --duration, keeps its scenario valid).
func actionAt(c *checker, key string, a Action, s *Resolved) (at sim.Time, inside bool) {
	if !a.At.Set() {
		c.add(key+".at", "required: a clock time such as \"08:00\" or a duration since the start such as \"2h\"")
	} else if at, err := a.At.At(s.Start); err != nil {
		c.add(key+".at", "%v", err)
	} else if at < 0 {
		c.add(key+".at", "must not be before the start (got %q)", a.At)
	} else {
		return at, s.Duration <= 0 || at < s.Duration
	}
	return 0, true
}

// actionSetting returns the one setting an action changes, and what may change it; false
// when it sets none or several.
func actionSetting(c *checker, key string, a Action) (ActionSetting, string, bool) {
	var what []string
	var hints []string
	var x ActionSetting
	for _, y := range actionSettings {
		for _, k := range y.Keys {
			if a.Ext.Value(k) != nil {
				what = append(what, k)
				x = y
			}
		}
		hints = append(hints, y.Hints...)
	}
	switch {
	case len(what) == 0 && len(hints) == 0:
		c.add(key, "says nothing to do")
	case len(what) == 0 && len(hints) == 1:
		c.add(key, "says nothing to do: give %s", hints[0])
	case len(what) == 0:
		c.add(key, "says nothing to do: give %s, or %s", strings.Join(hints[:len(hints)-1], ", "), hints[len(hints)-1])
	case len(what) > 1:
		c.add(key+"."+what[1], "an action changes one setting, and this one already sets %s: use one [[actions]] entry for each", what[0])
	default:
		return x, what[0], true
	}
	return x, "", false
}

// GroupDigits formats a number with thousands separators, as the timeline's texts do:
// 9000 -> "9,000", 2.5 -> "2.5".
func GroupDigits(v float64) string { return groupDigits(v) }

// groupDigits formats a number with thousands separators: 9000 -> "9,000", 2.5 -> "2.5".
func groupDigits(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if math.Abs(v) >= 1e21 {
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, d := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// resolveDetect reads [detect].
func resolveDetect(c *checker, f *File, s *Resolved) {
	s.Detect = detect.Default
	d := f.Detect
	if d == nil {
		return
	}
	s.DetectGiven = true
	between := func(key string, p *int, def, lo, hi int) int {
		if p == nil {
			return def
		}
		if *p < lo || *p > hi {
			c.add(key, "must be between %d and %d (got %d)", lo, hi, *p)
			return def
		}
		return *p
	}
	s.Detect.TopK = between("detect.top_k", d.TopK, detect.DefaultTopK, 1, maxTopK)
	s.Detect.SampleEvery = between("detect.sample_every", d.SampleEvery, detect.DefaultSampleEvery, 1, maxSampleEvery)
	s.Detect.MaxKeys = between("detect.max_keys", d.MaxKeys, detect.DefaultMaxKeys, 1, maxDetectKeys)
	s.Detect.OutlierMinSamples = between("detect.outlier_min_samples", d.OutlierMinSamples, detect.DefaultOutlierMinSamples, 1, maxOutlierMinSamples)
	if d.OutlierFactor != nil {
		if v := *d.OutlierFactor; !(v > 1) || math.IsInf(v, 0) {
			c.add("detect.outlier_factor", "must be a number above 1 (got %v)", v)
		} else {
			s.Detect.OutlierFactor = v
		}
	}
}

// KeyFieldsOf returns the fields the key's parts read, in key order, once each: a time
// bucket part reads its raw time field.
func KeyFieldsOf(parts []keyspace.Part) []int {
	var out []int
	for _, p := range parts {
		if !slices.Contains(out, p.Field) {
			out = append(out, p.Field)
		}
	}
	return out
}

// Bounds of the closed-loop keys.
const (
	maxClients = 1_000_000
	maxThink   = 24 * sim.Hour
)

// resolveDelay reads a think time (or a mechanism's delay, Checker.Delay); a bare duration is of kind bare. The mean
// must be at least minimum (1: positive, 0: not negative) and at most most.
func resolveDelay(c *checker, key string, d Dist, bare sim.ServiceKind, minimum, most sim.Time, mostText string) sim.Delay {
	out := sim.Delay{Kind: bare, CV: defaultCV}
	switch d.Dist {
	case "constant":
		out.Kind = sim.Constant
	case "exponential":
		out.Kind = sim.Exponential
	case "lognormal":
		out.Kind = sim.Lognormal
	}
	mk := key
	if d.Dist != "" {
		mk = key + ".mean"
	}
	before := len(c.probs)
	out.Mean = c.duration(mk, d.Mean, "", minimum)
	if len(c.probs) == before && out.Mean > most {
		c.add(mk, "must be at most %s (got %q)", mostText, d.Mean)
	}
	if d.CV != nil {
		switch cv := *d.CV; {
		case out.Kind != sim.Lognormal:
			c.add(key+".cv", "applies only to dist = \"lognormal\"")
		case !(cv > 0) || math.IsInf(cv, 0) || cv > 100:
			c.add(key+".cv", "must be a positive number of at most 100 (got %v)", cv)
		default:
			out.CV = cv
		}
	}
	return out
}

// resolveClients reads a stream's clients and think time (a closed-loop stream), after
// its cost.
func resolveClients(c *checker, key string, st Stream, s *Resolved, ss *StreamSpec) {
	if st.Clients == nil {
		if st.Think.Set() {
			c.add(key+".think", "applies only to a stream with clients (closed-loop)")
		}
		return
	}
	switch n := *st.Clients; {
	case n < 1 || n > maxClients:
		c.add(key+".clients", "must be between 1 and %d (got %d)", maxClients, n)
		return
	case st.Rate != nil:
		c.add(key+".clients", "give rate (open-loop arrivals) or clients (closed-loop), not both")
		return
	case st.Schedule != nil:
		c.add(key+".clients", "give schedule (open-loop arrivals) or clients (closed-loop), not both")
		return
	case st.Arrival != "":
		c.add(key+".arrival", "applies only to open-loop streams (rate or schedule): closed-loop clients issue a request when they have thought")
	case st.Burst != nil:
		c.add(key+".burst", "applies only to open-loop streams (rate or schedule)")
	}
	if !st.Think.Set() {
		c.add(key+".think", "required with clients: the time a client waits between an answer and its next request, e.g. \"10ms\" (\"0s\": none)")
		return
	}
	ss.Think = resolveDelay(c, key+".think", st.Think, sim.Exponential, 0, maxThink, "1d")
	// load_factor scales the clients, as it scales an open-loop stream's rate.
	ss.Clients = max(1, int(math.Round(float64(*st.Clients)*s.LoadFactor)))
	if float64(*st.Clients)*s.LoadFactor > maxClients {
		c.add(key+".clients", "times load_factor %v gives more than %d clients", s.LoadFactor, maxClients)
	}
	if cycle := ss.Think.Mean + ss.Cost + ss.Lock.Mean + 2*s.Network; cycle > 0 {
		ss.Schedule = workload.Schedule{{At: 0, Rate: float64(ss.Clients) / cycle.Seconds()}}
	}
}

// maxRetryLabel bounds a retry label: it is printed in table cells and alert lines.
const maxRetryLabel = 60

// resolveRetryLabel checks a stream's words for its retries: plain text of at most 60
// characters (no control character), on a stream that retries.
func resolveRetryLabel(c *checker, key, label string, retries int) string {
	switch {
	case label == "":
		return ""
	case retries == 0:
		c.add(key, "needs retries above 0: a stream that never retries has no retries to name (got %q)", label)
	case strings.TrimSpace(label) != label || len(label) > maxRetryLabel || strings.ContainsAny(label, "\n\r\t|<>`") || strings.IndexFunc(label, isControl) >= 0:
		c.add(key, "must be plain text of at most %d characters, without surrounding spaces, line breaks, control characters, |, <, > or ` (got %q)", maxRetryLabel, label)
	default:
		return label
	}
	return ""
}
