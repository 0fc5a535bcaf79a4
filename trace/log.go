package trace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/shardsim/shardsim/workload"
)

// Log is an access log a scenario replays (a stream's trace, docs/traces.md): where it is,
// its format and how its keys split into fields. Every read of a replayed log goes
// through it: its first record's names and its rates while the scenario is checked, the
// sample a range scheme's splits are cut from, and the records of the replay (Source).
type Log struct {
	FS        fs.FS // nil: never opened (a scenario built without its directory)
	Path      string
	Format    Format
	Delimiter string
	Names     []string
}

// Options are the reader options of the log. Malformed lines are skipped in a replay;
// analyze reports them.
func (l *Log) Options() Options {
	o := Options{Format: l.Format, MaxBad: -1}
	if l.Delimiter != "" {
		o.Delimiter, o.Names = l.Delimiter, l.Names
	}
	return o
}

// open opens the log and its reader with opt; its errors name the log's path once.
func (l *Log) open(opt Options) (*Reader, io.Closer, error) {
	rc, err := Open(l.FS, l.Path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, fmt.Errorf("cannot read %q: %v", l.Path, err)
	}
	rd, err := NewReader(rc, opt)
	if err != nil {
		rc.Close()
		return nil, nil, fmt.Errorf("%s: %v", l.Path, err)
	}
	return rd, rc, nil
}

// FirstNames opens the log and reads its first record; it returns the key parts' names
// (a CSV's header names them).
func (l *Log) FirstNames() ([]string, error) {
	opt := l.Options()
	opt.MaxBad = 0 // stop early when most lines fail: the wrong format
	rd, rc, err := l.open(opt)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if _, err := rd.Next(); err != nil {
		if err == io.EOF {
			if bad := rd.Malformed(); len(bad) > 0 {
				return nil, fmt.Errorf("%s: no record: line %d: %s: %q", l.Path, bad[0].Line, bad[0].Why, bad[0].Text)
			}
			return nil, fmt.Errorf("%s: the log holds no record", l.Path)
		}
		return nil, fmt.Errorf("%s: %v", l.Path, err)
	}
	return rd.Names(), nil
}

// The rates of the logs read so far in this process, so that the variants of a scenario
// (and the replications of a sweep) read a log once.
var (
	ratesMu    sync.Mutex
	ratesCache = map[rateKey]*OpRates{}
)

type rateKey struct {
	fsys             fs.FS
	path, format     string
	delimiter, names string
}

// Rates reads the log through once per process and counts its operations by window.
func (l *Log) Rates() (rates *OpRates, err error) {
	key := rateKey{l.FS, l.Path, l.Format.String(), l.Delimiter, strings.Join(l.Names, "\x00")}
	defer func() {
		// A file system that cannot be a map key is read every time.
		if recover() != nil {
			rates, err = l.readRates()
		}
	}()
	ratesMu.Lock()
	r, ok := ratesCache[key]
	ratesMu.Unlock()
	if ok {
		return r, nil
	}
	r, err = l.readRates()
	if err != nil {
		return nil, err
	}
	ratesMu.Lock()
	ratesCache[key] = r
	ratesMu.Unlock()
	return r, nil
}

// readRates reads the whole log for Rates.
func (l *Log) readRates() (*OpRates, error) {
	rd, rc, err := l.open(l.Options())
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r, err := Rates(rd)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", l.Path, err)
	}
	return r, nil
}

// Sample draws the first n records' keys of the log as Sample does (nil, nil, nil when
// the log is not there or cannot be read: the caller falls back to its own sample).
func (l *Log) Sample(d *Design, n int) ([][]uint64, []int64, error) {
	if l.FS == nil {
		return nil, nil, nil
	}
	rd, rc, err := l.open(l.Options())
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	return Sample(rd, d, n)
}

// Source is the replay of the log's records of operation op (see NewSource).
func (l *Log) Source(op Op, speed float64, parts int, order bool) *Source {
	return NewSource(l.FS, l.Path, l.Options(), op, speed, parts, order)
}

// Schedule is the rate schedule of the log's operation op replayed at speed, for explain
// and the request estimate (the replay itself issues the log's records): see
// logSchedule.
func (o *OpRates) Schedule(op Op, speed float64) workload.Schedule {
	counts := o.Reads
	if op == Write {
		counts = o.Writes
	}
	return logSchedule(counts, o.Width, o.End, speed)
}

// logSchedule is a point at the centre of each window at the window's mean rate, the first
// also at 0, and rate 0 from the end of the last window, with the log's time divided by
// speed. A last window the log covers less than half of is left out, as in analyze.
func logSchedule(counts []int64, width, end int64, speed float64) workload.Schedule {
	if len(counts) == 0 {
		return workload.Schedule{{At: 0, Rate: 0}}
	}
	const millisecond = 1_000_000 // ns
	var sc workload.Schedule
	for i, n := range counts {
		w := width
		if i == len(counts)-1 {
			// As analyze's rate: a last window the log covers less than half of is no
			// rate (one record just past an edge would read as a burst).
			if covered := end - int64(i)*width; i > 0 && covered < width/2 {
				break
			}
			w = max(min(end-int64(i)*width, width), millisecond)
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
