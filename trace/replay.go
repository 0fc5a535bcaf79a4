package trace

import (
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

// Source replays the records of one operation of a log as a simulation stream: it is the
// stream's arrival process (workload.Arrivals), and Field gives the generators of the
// fields its keys hold. The log is opened at the first arrival and read as the run goes,
// so memory does not grow with the log, and nothing is allocated per record once warm.
//
// The engine draws a stream's arrivals ahead of the requests they issue and, for each
// request in arrival order, calls its field generators once each in field order; Source
// keeps the key parts of the arrivals drawn but not yet issued in a small queue, and the
// generator of the first field it feeds takes the next entry.
type Source struct {
	fsys  fs.FS
	path  string
	opt   Options
	op    Op
	speed float64
	parts int
	// order keeps the byte order of text parts (a range scheme); orders anchors each
	// part on the log's first text value, whatever its record's operation
	order  bool
	orders []TextOrder

	rc     io.ReadCloser
	rd     *Reader
	opened bool
	done   bool
	err    error

	// Slots makes every part's value carry the Redis Cluster slot of the record's whole
	// key (keyspace.SlotValue), for the redis_cluster scheme; set before the first arrival.
	Slots bool
	// Want is how many records of the source's operation the log held when it was read
	// before the run (0: not known): a log that ends with fewer was cut short while the
	// run read it, and Err says so.
	Want int64

	feed    bool       // some field is fed: keep the key parts of pending arrivals
	queue   [][]uint64 // ring of pending arrivals' part values
	head, n int
	cur     []uint64
	records int64
}

var _ workload.Arrivals = (*Source)(nil)

// NewSource returns the replay of the records of operation op in the log at path in fsys,
// with time divided by speed (2 replays twice as fast). parts is the number of key parts
// the reader yields; order keeps the byte order of text parts (TextOrder), as a range
// scheme needs, where without it a text part is hashed whole (FieldValue).
func NewSource(fsys fs.FS, path string, opt Options, op Op, speed float64, parts int, order bool) *Source {
	s := &Source{fsys: fsys, path: path, opt: opt, op: op, speed: speed, parts: parts, queue: make([][]uint64, 8), order: order}
	if order {
		s.orders = make([]TextOrder, parts)
	}
	for i := range s.queue {
		s.queue[i] = make([]uint64, parts)
	}
	s.cur = make([]uint64, parts)
	return s
}

// Err returns the error that ended the replay early (nil at the end of the log).
func (s *Source) Err() error { return s.err }

// Path returns the log's path in its file system.
func (s *Source) Path() string { return s.path }

// Lines returns the lines of the log read so far and how many of them were malformed
// (skipped), with the first malformed lines quoted; zeros before the log is opened.
func (s *Source) Lines() (lines, bad int64, quoted []BadLine) {
	if s.rd == nil {
		return 0, 0, nil
	}
	lines, bad = s.rd.Lines()
	return lines, bad, s.rd.Malformed()
}

// Records returns the records replayed so far (arrivals drawn).
func (s *Source) Records() int64 { return s.records }

// Next returns the issue time of the next record of the source's operation, at or after
// t, or workload.Never after the last.
func (s *Source) Next(_ *rand.Rand, t int64) int64 {
	if !s.opened {
		s.open()
	}
	if s.done {
		return workload.Never
	}
	for {
		rec, err := s.rd.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
				if s.records < s.Want {
					err = fmt.Errorf("the log ended after %s of the %s %s records it held when the run began: it was cut short while the run read it",
						units.Count(s.records), units.Count(s.Want), s.op)
				}
			}
			s.stop(err)
			return workload.Never
		}
		if rec.Op != s.op {
			if s.order {
				s.see(rec)
			}
			continue
		}
		s.records++
		if s.feed {
			s.enqueue(rec)
		}
		at := rec.T
		if s.speed != 1 {
			at = int64(float64(rec.T) / s.speed)
		}
		return max(at, t)
	}
}

// open opens the log at the first arrival; a source without a file system, or a log that
// does not open, ends the replay (Err says why).
func (s *Source) open() {
	s.opened = true
	if s.fsys == nil {
		s.stop(nil)
		return
	}
	rc, err := Open(s.fsys, s.path)
	if err == nil {
		s.rc = rc
		s.rd, err = NewReader(rc, s.opt)
	}
	if err != nil {
		s.stop(err)
	}
}

// see passes a record of another operation through the text orders, so that every reader
// of the log anchors each part on the same first value (TextOrder).
func (s *Source) see(rec *Record) {
	for i, p := range rec.Parts {
		s.orders[i].See(p)
	}
}

// enqueue adds the field values of an arrival's key parts to the pending queue.
func (s *Source) enqueue(rec *Record) {
	if s.n == len(s.queue) {
		s.grow()
	}
	q := s.queue[(s.head+s.n)%len(s.queue)]
	for i, p := range rec.Parts {
		if s.order {
			q[i] = s.orders[i].Value(p)
		} else {
			q[i] = FieldValue(p)
		}
	}
	if s.Slots {
		slot := keyspace.KeySlot(rec.Key)
		for i := range rec.Parts {
			q[i] = keyspace.SlotValue(slot, q[i])
		}
	}
	s.n++
}

func (s *Source) stop(err error) {
	s.done, s.err = true, err
	if s.rc != nil {
		s.rc.Close()
	}
}

func (s *Source) grow() {
	q := make([][]uint64, 2*len(s.queue))
	for i := range q {
		if i < s.n {
			q[i] = s.queue[(s.head+i)%len(s.queue)]
		} else {
			q[i] = make([]uint64, s.parts)
		}
	}
	s.queue, s.head = q, 0
}

// take moves the oldest pending arrival's parts to cur.
func (s *Source) take() {
	if s.n == 0 {
		return // no arrival pending: the fields keep their last values
	}
	s.cur, s.queue[s.head] = s.queue[s.head], s.cur
	s.head = (s.head + 1) % len(s.queue)
	s.n--
}

// Field returns the generator of key part i. The generator of the first fed field in the
// stream's field order must be made with first set: it advances to the next record.
func (s *Source) Field(i int, first bool) workload.Generator {
	s.feed = true
	return &partField{s: s, i: i, first: first}
}

type partField struct {
	s     *Source
	i     int
	first bool
}

func (p *partField) Next(_ *rand.Rand, _ int64) uint64 {
	if p.first {
		p.s.take()
	}
	return p.s.cur[p.i]
}

// Info: a log's values are neither bounded nor time-ordered as far as the planners know.
func (p *partField) Info() workload.Info { return workload.Info{} }
