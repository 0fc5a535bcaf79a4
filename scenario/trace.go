package scenario

import (
	"cmp"
	"fmt"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/trace"
	"github.com/shardsim/shardsim/workload"
)

// Trace is a stream's trace = { path, format, speed, key_fields }: the stream replays an
// access log.
type Trace struct {
	Path      string     `toml:"path"`
	Format    string     `toml:"format"`
	Speed     *float64   `toml:"speed"`
	KeyFields *KeyFields `toml:"key_fields"`
}

// KeyFields is key_fields = { delimiter = ":", names = ["ns", "kind", "id"] }: how a log's
// key splits into table fields.
type KeyFields struct {
	Delimiter string   `toml:"delimiter"`
	Names     []string `toml:"names"`
}

// TraceSpec is a validated trace of a stream: the stream is one of the two (reads, writes)
// that replay the log's records of one operation.
type TraceSpec struct {
	// Log is the log (its FS nil when not opened: a File built without TraceFS), which
	// package trace opens and reads.
	trace.Log
	Speed float64
	// PartFields is the table field of each key part, in order.
	PartFields []int
}

// maxSpeed bounds a trace's speed-up, minSpeed its slow-down: a millionth stretches a
// second of the log to 11.6 days. Beyond, the log's times divided by speed stop being
// nanoseconds the engine's clock can hold (1e-300 made every one infinite, and the whole
// log replayed at t = 0).
const (
	maxSpeed = 1e6
	minSpeed = 1e-6
)

// resolveTrace validates stream st's trace and returns the two streams that replay it:
// NAME.read and NAME.write, each with ss's settings and the log's records of its
// operation. Their schedules hold rate 0: the log, not a rate, decides the arrivals.
func resolveTrace(c *checker, key string, f *File, st Stream, s *Resolved, ss StreamSpec) []StreamSpec {
	tk := key + ".trace"
	traceRefusals(c, key, st)
	ts, names, ok := traceLog(c, tk, f, st.Trace)
	if !ok {
		return nil
	}
	for i, n := range names {
		fi := s.fieldIndex(n)
		if fi < 0 {
			k := fmt.Sprintf("%s.key_fields.names[%d]", tk, i)
			if st.Trace.KeyFields == nil {
				k = tk + ".key_fields"
			}
			c.add(k, "no such field %q in table.fields: declare the fields the log's keys hold (have %s)", n, strings.Join(s.FieldNames, ", "))
			continue
		}
		ts.PartFields = append(ts.PartFields, fi)
	}
	if len(ts.PartFields) < len(names) {
		return nil
	}
	// load_factor scales a replay's speed as it scales a rate.
	ts.Speed *= s.LoadFactor
	var rates *trace.OpRates
	if ts.FS != nil && ts.Path != "" && !c.has(tk) {
		if rates, ok = traceRates(c, tk, ts, s.LoadFactor); !ok {
			return nil
		}
	}
	out := make([]StreamSpec, 0, 2)
	for _, op := range []sim.Op{sim.Read, sim.Write} {
		o := ss
		o.Name, o.Op, o.Trace = st.Name+"."+op.String(), op, ts
		o.Schedule = workload.Schedule{{At: 0, Rate: 0}}
		if rates != nil {
			logOp := trace.Read
			if op == sim.Write {
				logOp = trace.Write
			}
			o.Schedule = rates.Schedule(logOp, ts.Speed)
		}
		o.Fields = slices.Clone(ss.Fields)
		out = append(out, o)
	}
	return out
}

// traceRefusals refuses the stream settings a log decides.
func traceRefusals(c *checker, key string, st Stream) {
	if st.Op != "" {
		c.add(key+".op", "a trace stream takes each record's operation from the log: remove op (got %q)", st.Op)
	}
	if st.Rate != nil || st.Schedule != nil {
		c.add(key+".rate", "a trace stream's arrivals come from the log: remove rate and schedule")
	}
	if len(st.Where) > 0 {
		c.add(key+".where", "a trace stream replays point reads and writes: remove where")
	}
}

// traceLog reads a trace's path, format, speed and key fields, and opens the log to read
// its first record, whose key parts it returns by name (a CSV's header names them); false
// when the log cannot be read.
func traceLog(c *checker, tk string, f *File, t *Trace) (*TraceSpec, []string, bool) {
	ts := &TraceSpec{Log: trace.Log{FS: f.TraceFS, Path: t.Path}, Speed: 1}
	switch {
	case t.Path == "":
		c.add(tk+".path", "required: the log's path, relative to the scenario file")
	case path.IsAbs(t.Path) || strings.Contains(t.Path, "\\"):
		c.add(tk+".path", "must be a relative path with '/' (from the scenario file's directory) (got %q)", t.Path)
	}
	format, err := trace.ParseFormat(cmp.Or(t.Format, "csv"))
	if err != nil {
		c.add(tk+".format", "must be one of %s (got %q)", strings.Join(quoteAll(trace.Formats()), ", "), t.Format)
	}
	ts.Format = format
	if t.Speed != nil {
		if v := *t.Speed; !(v >= minSpeed) || v > maxSpeed || math.IsInf(v, 0) {
			c.add(tk+".speed", "must be a number from %g to %g (got %v)", minSpeed, float64(maxSpeed), v)
		} else {
			ts.Speed = v
		}
	}
	ts.Names = traceKeyFields(c, tk, t.KeyFields, ts)
	names := ts.Names
	if ts.FS != nil && t.Path != "" && err == nil && !c.has(tk) {
		got, err := ts.FirstNames()
		if err != nil {
			c.add(tk+".path", "%v", err)
			return nil, nil, false
		}
		names = got
	}
	return ts, names, true
}

// traceKeyFields reads how the log's keys split into fields (one field, key, unless
// key_fields says otherwise) and returns the fields' names.
func traceKeyFields(c *checker, tk string, kf *KeyFields, ts *TraceSpec) []string {
	if kf == nil {
		return []string{"key"}
	}
	switch {
	case len(kf.Delimiter) != 1:
		c.add(tk+".key_fields.delimiter", "must be one character (got %q)", kf.Delimiter)
	case len(kf.Names) == 0 || len(kf.Names) > 8:
		c.add(tk+".key_fields.names", "must name between 1 and 8 key parts (got %d)", len(kf.Names))
	}
	ts.Delimiter = kf.Delimiter
	return kf.Names
}

// traceRates reads the log's rates; the replay's last record must fall on the clock: the
// log's span over speed (load_factor included) within the longest run.
func traceRates(c *checker, tk string, ts *TraceSpec, loadFactor float64) (*trace.OpRates, bool) {
	rates, err := ts.Rates()
	if err != nil {
		c.add(tk+".path", "%v", err)
		return nil, false
	}
	if span := float64(rates.End) / ts.Speed; span > float64(maxAge) {
		c.add(tk+".speed", "the log spans %s, which at speed %g (times load_factor %g) replays over %.3g days; at most 10000d is allowed: raise speed or load_factor",
			time.Duration(rates.End), ts.Speed/loadFactor, loadFactor, span/86400e9)
		return nil, false
	}
	return rates, true
}

// has reports a problem already found at key or under it.
func (c *checker) has(key string) bool {
	for _, p := range c.probs {
		if p.Key == key || strings.HasPrefix(p.Key, key+".") {
			return true
		}
	}
	return false
}
