package spec

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"
	"sync"
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
	FS        fs.FS // nil: not opened (a File built without TraceFS)
	Path      string
	Format    trace.Format
	Speed     float64
	Delimiter string
	Names     []string
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
	t := st.Trace
	if st.Op != "" {
		c.add(key+".op", "a trace stream takes each record's operation from the log: remove op (got %q)", st.Op)
	}
	if st.Rate != nil || st.Schedule != nil {
		c.add(key+".rate", "a trace stream's arrivals come from the log: remove rate and schedule")
	}
	if len(st.Where) > 0 {
		c.add(key+".where", "a trace stream replays point reads and writes: remove where")
	}
	ts := &TraceSpec{FS: f.TraceFS, Path: t.Path, Speed: 1}
	switch {
	case t.Path == "":
		c.add(tk+".path", "required: the log's path, relative to the scenario file")
	case path.IsAbs(t.Path) || strings.Contains(t.Path, "\\"):
		c.add(tk+".path", "must be a relative path with '/' (from the scenario file's directory) (got %q)", t.Path)
	}
	fname := t.Format
	if fname == "" {
		fname = "csv"
	}
	format, err := trace.ParseFormat(fname)
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
	names := []string{"key"}
	if kf := t.KeyFields; kf != nil {
		names = kf.Names
		switch {
		case len(kf.Delimiter) != 1:
			c.add(tk+".key_fields.delimiter", "must be one character (got %q)", kf.Delimiter)
		case len(kf.Names) == 0 || len(kf.Names) > 8:
			c.add(tk+".key_fields.names", "must name between 1 and 8 key parts (got %d)", len(kf.Names))
		}
		ts.Delimiter = kf.Delimiter
	}
	ts.Names = names
	if ts.FS != nil && t.Path != "" && err == nil && !c.has(tk) {
		// The log opens, and its first record reads; a CSV's header names the fields.
		got, err := firstRecord(ts)
		if err != nil {
			c.add(tk+".path", "%v", err)
			return nil
		} else {
			names = got
		}
	}
	for i, n := range names {
		fi := s.fieldIndex(n)
		if fi < 0 {
			k := fmt.Sprintf("%s.key_fields.names[%d]", tk, i)
			if t.KeyFields == nil {
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
	if ts.FS != nil && t.Path != "" && !c.has(tk) {
		var err error
		if rates, err = logRates(ts); err != nil {
			c.add(tk+".path", "%v", err)
			return nil
		}
		// The replay's last record must fall on the clock: the log's span over speed
		// (load_factor included) within the longest run.
		if span := float64(rates.End) / ts.Speed; span > float64(maxAge) {
			c.add(tk+".speed", "the log spans %s, which at speed %g (times load_factor %g) replays over %.3g days; at most 10000d is allowed: raise speed or load_factor",
				time.Duration(rates.End), ts.Speed/s.LoadFactor, s.LoadFactor, span/86400e9)
			return nil
		}
	}
	out := make([]StreamSpec, 0, 2)
	for _, op := range []sim.Op{sim.Read, sim.Write} {
		o := ss
		o.Name, o.Op, o.Trace = st.Name+"."+op.String(), op, ts
		o.Schedule = workload.Schedule{{At: 0, Rate: 0}}
		if rates != nil {
			counts := rates.Reads
			if op == sim.Write {
				counts = rates.Writes
			}
			o.Schedule = logSchedule(counts, rates.Width, rates.End, ts.Speed)
		}
		o.Fields = slices.Clone(ss.Fields)
		out = append(out, o)
	}
	return out
}

// logSchedule is the rate schedule of a replayed operation, for explain and the request
// estimate (the replay itself issues the log's records): a point at the centre of each
// window at the window's mean rate, the first also at 0, and rate 0 from the end of the
// last window, with the log's time divided by speed. A last window the log covers less
// than half of is left out, as in analyze.
func logSchedule(counts []int64, width, end int64, speed float64) workload.Schedule {
	if len(counts) == 0 {
		return workload.Schedule{{At: 0, Rate: 0}}
	}
	var sc workload.Schedule
	for i, n := range counts {
		w := width
		if i == len(counts)-1 {
			// As analyze's rate: a last window the log covers less than half of is no
			// rate (one record just past an edge would read as a burst).
			if covered := end - int64(i)*width; i > 0 && covered < width/2 {
				break
			}
			w = max(min(end-int64(i)*width, width), int64(sim.Millisecond))
		}
		at := int64(float64(int64(i)*width+w/2) / speed)
		rate := float64(n) / (float64(w) / 1e9) * speed
		if i == 0 && at > 0 {
			sc = append(sc, workload.Point{At: 0, Rate: rate})
		}
		if len(sc) > 0 && at <= sc[len(sc)-1].At {
			continue
		}
		sc = append(sc, workload.Point{At: at, Rate: rate})
	}
	last := int64(float64(int64(len(counts)-1)*width+min(max(end-int64(len(counts)-1)*width, 1), width)) / speed)
	if last > sc[len(sc)-1].At {
		sc = append(sc, workload.Point{At: last, Rate: 0})
	}
	return sc
}

// The rates of the logs read so far in this process, so that the variants of a scenario
// read a log once.
var (
	ratesMu    sync.Mutex
	ratesCache = map[rateKey]*trace.OpRates{}
)

type rateKey struct {
	fsys             fs.FS
	path, format     string
	delimiter, names string
}

// logRates reads the log through once (per process) and counts its operations by window.
func logRates(ts *TraceSpec) (rates *trace.OpRates, err error) {
	key := rateKey{ts.FS, ts.Path, ts.Format.String(), ts.Delimiter, strings.Join(ts.Names, "\x00")}
	defer func() {
		// A file system that cannot be a map key is read every time.
		if recover() != nil {
			rates, err = readRates(ts)
		}
	}()
	ratesMu.Lock()
	r, ok := ratesCache[key]
	ratesMu.Unlock()
	if ok {
		return r, nil
	}
	r, err = readRates(ts)
	if err != nil {
		return nil, err
	}
	ratesMu.Lock()
	ratesCache[key] = r
	ratesMu.Unlock()
	return r, nil
}

func readRates(ts *TraceSpec) (*trace.OpRates, error) {
	rc, err := trace.Open(ts.FS, ts.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %q: %v", ts.Path, err)
	}
	defer rc.Close()
	rd, err := trace.NewReader(rc, ts.Options())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ts.Path, err)
	}
	r, err := trace.Rates(rd)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ts.Path, err)
	}
	return r, nil
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

// firstRecord opens the log and reads its first record; it returns the key parts' names.
func firstRecord(ts *TraceSpec) ([]string, error) {
	rc, err := trace.Open(ts.FS, ts.Path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read %q: %v", ts.Path, err)
	}
	defer rc.Close()
	opt := ts.Options()
	opt.MaxBad = 0 // stop early when most lines fail: the wrong format
	rd, err := trace.NewReader(rc, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ts.Path, err)
	}
	if _, err := rd.Next(); err != nil {
		if err == io.EOF {
			if bad := rd.Malformed(); len(bad) > 0 {
				return nil, fmt.Errorf("%s: no record: line %d: %s: %q", ts.Path, bad[0].Line, bad[0].Why, bad[0].Text)
			}
			return nil, fmt.Errorf("%s: the log holds no record", ts.Path)
		}
		return nil, fmt.Errorf("%s: %v", ts.Path, err)
	}
	return rd.Names(), nil
}

// Options are the reader options of the trace. Malformed lines are skipped in a replay;
// analyze reports them.
func (ts *TraceSpec) Options() trace.Options {
	o := trace.Options{Format: ts.Format, MaxBad: -1}
	if ts.Delimiter != "" {
		o.Delimiter, o.Names = ts.Delimiter, ts.Names
	}
	return o
}
