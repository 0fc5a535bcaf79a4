package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Format is the layout of a log's lines.
type Format uint8

const (
	// CSV has a header row naming its columns: ts (seconds, fractional allowed), op, and
	// either key (split like the other formats' keys) or one column per key field.
	CSV Format = iota
	// Twitter is the public Twitter cache trace (Yang et al., OSDI 2020):
	// timestamp,anonymized key,key size,value size,client id,operation,TTL, timestamps in
	// whole seconds. Keys may hold commas, so a line is parsed from the right.
	Twitter
	// KVCache is Meta's key-value cache trace (2024):
	// op_time,key,key_size,op,op_count,size,cache_hits,ttl,usecase,sub_usecase, each row
	// standing for op_count operations in its second.
	KVCache
)

var formatNames = [...]string{CSV: "csv", Twitter: "twitter", KVCache: "kvcache"}

// Formats lists the format names ParseFormat accepts.
func Formats() []string { return formatNames[:] }

func (f Format) String() string { return formatNames[f] }

// ParseFormat returns the format called name.
func ParseFormat(name string) (Format, error) {
	for i, n := range formatNames {
		if n == name {
			return Format(i), nil
		}
	}
	return 0, fmt.Errorf("unknown trace format %q (known: %s)", name, strings.Join(formatNames[:], ", "))
}

// Op is what a record does to its key: the simulation's point read or write.
type Op uint8

const (
	Read Op = iota
	Write
)

func (o Op) String() string {
	if o == Read {
		return "read"
	}
	return "write"
}

// OpNames are the operation names a log may hold, as OpCode indexes them; get, gets, read
// and select are reads, every other a write. Case does not matter in the log.
var OpNames = []string{"get", "set", "gets", "add", "replace", "cas", "append", "prepend", "delete",
	"incr", "decr", "read", "write", "select", "put", "insert", "update", "upsert"}

func opCode(name []byte) (code uint8, op Op, ok bool) {
	for i, n := range OpNames {
		if len(n) == len(name) && bytes.EqualFold(name, []byte(n)) {
			switch n {
			case "get", "gets", "read", "select":
				return uint8(i), Read, true
			}
			return uint8(i), Write, true
		}
	}
	return 0, 0, false
}

// DefaultMaxBad is the share of malformed lines a log may hold before reading it fails.
const DefaultMaxBad = 0.001

// Options say how to read a log.
type Options struct {
	Format Format
	// Delimiter splits a key into parts named by Names ("" keeps the whole key as one part,
	// named "key"). A key with fewer parts than names is malformed; the last part keeps
	// any further delimiters.
	Delimiter string
	Names     []string
	// MaxBad is the share of malformed lines tolerated (0: DefaultMaxBad; negative: any).
	MaxBad float64
	// MaxExpanded bounds the operations the log stands for beyond one a line (0: no
	// bound). A kvcache row stands for op_count operations, so a short file can stand for
	// billions, and a reader that visits each operation (analyze, fit) takes time in their
	// number, not in the file's size; past MaxExpanded, Next returns an *OpsError.
	MaxExpanded int64
}

// MaxVisitedOps is the Options.MaxExpanded of the commands that visit every operation of a
// log (analyze, fit): a few seconds of analyze at its 20 to 40 million operations a second,
// on top of the time the file's lines take.
const MaxVisitedOps = 100_000_000

// OpsError is returned by Next when the log stands for more operations than
// Options.MaxOps.
type OpsError struct {
	Max  int64
	Line int64 // the line whose op_count passed the bound
}

func (e *OpsError) Error() string {
	return fmt.Sprintf("op_count: the log's rows stand for more than %d operations beyond one a row (passed at line %d), each of which is read one by one; at most %d are allowed: lower op_count or split the log",
		e.Max, e.Line, e.Max)
}

// Record is one operation of the log. Its slices point into the reader's buffers and are
// valid until the next call of Next.
type Record struct {
	T      int64 // nanoseconds since the first record, never decreasing
	Op     Op
	OpCode uint8 // index in OpNames
	Key    []byte
	Parts  [][]byte // the key's parts, as Names names them
	Line   int64    // the line it came from (1-based)
}

// BadLine is a malformed line, quoted (at most 120 bytes).
type BadLine struct {
	Line int64
	Text string
	Why  string
}

// maxQuoted is how many malformed lines a reader quotes.
const maxQuoted = 5

// BadError is returned by Next when the log holds more malformed lines than allowed.
type BadError struct {
	Bad, Lines int64
	MaxBad     float64
	First      []BadLine
}

func (e *BadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d lines are malformed, more than the %g%% allowed", e.Bad, e.Lines, 100*e.MaxBad)
	for _, l := range e.First {
		fmt.Fprintf(&b, "\n  line %d: %s: %q", l.Line, l.Why, l.Text)
	}
	return b.String()
}

// row is a parsed line of a batched format, its key in the batch arena (32 bytes, so that
// a busy second of a million rows holds 32 MB of rows).
type row struct {
	sec        int64 // seconds of the source clock
	line       int64
	key0, key1 int32 // the key's bytes in the arena
	count      int32 // operations it stands for
	op         Op
	code       uint8
}

// split records where a key's parts end.
type split struct {
	ends   [maxParts]int32 // end of each part but the last
	nparts uint8
}

// maxParts bounds the parts of a key.
const maxParts = 8

// Reader streams the records of a log. Next reuses every buffer, so a warm reader
// allocates nothing per line.
type Reader struct {
	br    *bufio.Reader
	opt   Options
	names []string
	delim byte
	split bool

	lines, bad int64
	quoted     []BadLine
	long       []byte // a line longer than the bufio buffer
	tooLong    bool

	based bool
	base  int64 // source time of t = 0, ns
	last  int64

	// Batched formats: the rows of one second of the source clock, then the first row of
	// the next (carry), in arena.
	arena        []byte
	rows         []row
	carry        bool
	ri           int   // row being emitted
	rj           int64 // operation of it
	batchOps     int64
	opIndex      int64 // operation within the batch
	ops          int64 // operations returned beyond one a row, for MaxExpanded
	eof          bool
	rec          Record
	parts        [maxParts][]byte
	sp           split
	cols         [][]byte
	tsCol, opCol int
	keyCol       int
	fieldCols    []int
	ncols        int // the header's columns: a line must have as many
	scratch      []byte
}

// NewReader reads a log from r (already decompressed; see Open). For CSV it reads the
// header at once.
func NewReader(r io.Reader, opt Options) (*Reader, error) {
	if opt.MaxBad == 0 {
		opt.MaxBad = DefaultMaxBad
	}
	rd := &Reader{br: bufio.NewReaderSize(r, 256<<10), opt: opt, keyCol: -1}
	if opt.Delimiter != "" {
		if len(opt.Delimiter) != 1 {
			return nil, fmt.Errorf("key delimiter must be one byte (got %q)", opt.Delimiter)
		}
		if len(opt.Names) < 1 || len(opt.Names) > maxParts {
			return nil, fmt.Errorf("a key delimiter needs between 1 and %d part names (got %d)", maxParts, len(opt.Names))
		}
		rd.delim, rd.split, rd.names = opt.Delimiter[0], true, opt.Names
	} else {
		rd.names = []string{"key"}
	}
	if opt.Format == CSV {
		if err := rd.header(); err != nil {
			return nil, err
		}
	}
	rd.rec.Parts = rd.parts[:len(rd.names)]
	return rd, nil
}

// Names returns the names of the key's parts, in order.
func (r *Reader) Names() []string { return r.names }

// Lines returns the lines read so far (headers included) and how many were malformed.
func (r *Reader) Lines() (lines, bad int64) { return r.lines, r.bad }

// Malformed returns the first few malformed lines.
func (r *Reader) Malformed() []BadLine { return r.quoted }

// maxHeader bounds the bytes read while looking for a CSV log's header row: a file whose
// first line is longer (a binary file, a bomb of one byte repeated) is refused then,
// without reading the rest of it.
const maxHeader = 1 << 20

// header reads a CSV log's header row and finds its columns.
func (r *Reader) header() error {
	line, err := r.headerLine()
	if err != nil {
		return err
	}
	r.lines++
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'})
	return r.columns(line)
}

// headerLine reads the first line of a CSV log, at most maxHeader bytes of it.
func (r *Reader) headerLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	for err == bufio.ErrBufferFull && len(r.long)+len(line) <= maxHeader {
		r.long = append(r.long, line...)
		line, err = r.br.ReadSlice('\n')
	}
	if err == bufio.ErrBufferFull || len(r.long)+len(line) > maxHeader {
		return nil, fmt.Errorf("csv: no header row in the first %d MB (its first line is longer; want a line naming columns ts, op and key or field names)", maxHeader>>20)
	}
	if len(r.long) > 0 {
		line = append(r.long, line...)
		r.long = r.long[:0]
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(line) == 0 {
		return nil, errors.New("csv: no header row (want columns ts, op and key or field names)")
	}
	return line, nil
}

// columns finds the ts, op and key (or key field) columns named by header row line.
func (r *Reader) columns(line []byte) error {
	r.cols = splitComma(r.cols[:0], line)
	r.tsCol, r.opCol = -1, -1
	var fieldNames []string
	r.ncols = len(r.cols)
	seen := make(map[string]int, len(r.cols))
	for i, c := range r.cols {
		name := strings.ToLower(strings.TrimSpace(string(c)))
		if j, ok := seen[name]; ok {
			// Which of the two to read would be a guess.
			return fmt.Errorf("csv: the header row names column %q twice (columns %d and %d of %q): want each column once", name, j+1, i+1, string(line))
		}
		seen[name] = i
		switch name {
		case "ts":
			r.tsCol = i
		case "op":
			r.opCol = i
		case "key":
			r.keyCol = i
		default:
			r.fieldCols = append(r.fieldCols, i)
			fieldNames = append(fieldNames, name)
		}
	}
	if r.tsCol < 0 || r.opCol < 0 {
		return fmt.Errorf("csv: the header row must name columns ts and op (got %q)", string(line))
	}
	if r.keyCol < 0 {
		if len(fieldNames) == 0 || len(fieldNames) > maxParts {
			return fmt.Errorf("csv: the header row must name a key column or between 1 and %d field columns (got %q)", maxParts, string(line))
		}
		r.names, r.split = fieldNames, false
	}
	return nil
}

func splitComma(dst [][]byte, line []byte) [][]byte {
	for {
		i := bytes.IndexByte(line, ',')
		if i < 0 {
			return append(dst, line)
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
}

// maxLine bounds the bytes of a line kept; a longer line is malformed.
const maxLine = 4 << 20

// errTooLong reports a line longer than maxLine, already counted as malformed.
var errTooLong = errors.New("line too long")

// readLine returns the next line without its line ending; the slice is valid until the
// next call.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			if len(r.long) < maxLine {
				r.long = append(r.long, line...)
			} else {
				r.tooLong = true // the rest of the line is dropped
			}
		}
		line = r.long
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(line) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	r.lines++
	if r.tooLong {
		r.tooLong = false
		r.malformed(line, fmt.Sprintf("line longer than %d MB", maxLine>>20))
		return nil, errTooLong
	}
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return line, nil
}

func (r *Reader) malformed(line []byte, why string) {
	r.bad++
	if len(r.quoted) < maxQuoted {
		if len(line) > 120 {
			line = line[:120]
		}
		r.quoted = append(r.quoted, BadLine{Line: r.lines, Text: string(line), Why: why})
	}
}

// nextLine returns the next line no longer than maxLine (io.EOF after the last), counting
// a longer one as malformed.
func (r *Reader) nextLine() ([]byte, error) {
	for {
		line, err := r.readLine()
		if err != errTooLong {
			return line, err
		}
		if err := r.checkBad(false); err != nil {
			return nil, err
		}
	}
}

// reject counts line as malformed for the reason why and fails the read when most lines
// are (checkBad).
func (r *Reader) reject(line []byte, why string) error {
	r.malformed(line, why)
	return r.checkBad(false)
}

// checkBad fails the read past the malformed-line limit: at the end of the log, or early
// when most lines fail (the wrong format).
func (r *Reader) checkBad(atEnd bool) error {
	if r.opt.MaxBad < 0 || r.bad == 0 {
		return nil
	}
	if (atEnd && float64(r.bad) > r.opt.MaxBad*float64(r.lines)) || (r.lines >= 1000 && 2*r.bad > r.lines) {
		return &BadError{Bad: r.bad, Lines: r.lines, MaxBad: r.opt.MaxBad, First: r.quoted}
	}
	return nil
}

// Next returns the next record, or io.EOF after the last. A *BadError reports too many
// malformed lines.
func (r *Reader) Next() (*Record, error) {
	if r.opt.Format == CSV {
		return r.nextCSV()
	}
	if !r.rowReady() { // checked here, inlined, for every operation of a row
		if err := r.fillUntilReady(); err != nil {
			return nil, err
		}
	}
	w := &r.rows[r.ri]
	if err := r.countRow(w); err != nil {
		return nil, err
	}
	// Operation j of the n in a second of the source clock is issued at (j + 1/2)/n of it.
	n := r.batchOps
	t := w.sec*1e9 + (2*r.opIndex+1)*1e9/(2*n)
	r.opIndex++
	rec := r.emit(w, t)
	if r.rj++; r.rj >= int64(w.count) {
		r.ri++
		r.rj = 0
	}
	return rec, nil
}

// NextRow returns the next line's record and the number of operations it stands for
// (a kvcache row's op_count; 1 in the other formats), with the record's time that of its
// last operation: what Next would return, n calls of it folded into one, so that a reader
// counting operations takes time in the lines of the log, not in their op_count. Mixed
// with Next, it returns the rest of a row Next has begun.
func (r *Reader) NextRow() (*Record, int64, error) {
	if r.opt.Format == CSV {
		rec, err := r.nextCSV()
		return rec, 1, err
	}
	if err := r.fillUntilReady(); err != nil {
		return nil, 0, err
	}
	w := &r.rows[r.ri]
	k := int64(w.count) - r.rj // the row's operations not yet returned
	if err := r.countRow(w); err != nil {
		return nil, 0, err
	}
	n := r.batchOps
	r.opIndex += k
	t := w.sec*1e9 + (2*(r.opIndex-1)+1)*1e9/(2*n)
	rec := r.emit(w, t)
	r.ri++
	r.rj = 0
	return rec, k, nil
}

// emit fills the record of row w's operation issued at t nanoseconds of the source clock:
// its time from the log's first second, never before the last record's, and on a row's
// first operation its key and parts (checked when the row was read).
func (r *Reader) emit(w *row, t int64) *Record {
	if !r.based {
		r.based, r.base = true, w.sec*1e9
	}
	t -= r.base
	if t < r.last {
		t = r.last
	}
	r.last = t
	rec := &r.rec
	rec.T, rec.Op, rec.OpCode, rec.Line = t, w.op, w.code, w.line
	if r.rj == 0 {
		key := r.arena[w.key0:w.key1]
		rec.Key = key
		r.splitKey(key, &r.sp)
		r.setParts(key)
	}
	return rec
}

// countRow adds a row's operations past its first to the count MaxExpanded bounds, as the
// row begins, so that a row past the bound is refused before its first operation.
func (r *Reader) countRow(w *row) error {
	if r.opt.MaxExpanded <= 0 || r.rj > 0 {
		return nil
	}
	if r.ops += int64(w.count) - 1; r.ops > r.opt.MaxExpanded {
		return &OpsError{Max: r.opt.MaxExpanded, Line: w.line}
	}
	return nil
}

// rowReady says that the batch holds a row to emit: one left that is not the carried
// first row of the next second, which waits for its own batch.
func (r *Reader) rowReady() bool {
	return r.ri < len(r.rows) && !(r.carry && r.ri == len(r.rows)-1)
}

// fillUntilReady reads batches of a batched format until one holds a row to emit.
func (r *Reader) fillUntilReady() error {
	for !r.rowReady() {
		if err := r.fill(); err != nil {
			return err
		}
	}
	return nil
}

// fill reads the next second of a batched format into the arena.
func (r *Reader) fill() error {
	if r.eof {
		if err := r.checkBad(true); err != nil {
			return err
		}
		return io.EOF
	}
	r.startBatch()
	for {
		w, key, err := r.nextRow()
		if err == io.EOF {
			r.eof = true
			break
		}
		if err != nil {
			return err
		}
		if !r.addRow(w, key) {
			break
		}
	}
	r.countBatch()
	return nil
}

// startBatch empties the arena for the next batch, but for the row carried from the
// last, which moves to its start.
func (r *Reader) startBatch() {
	r.ri, r.rj, r.opIndex = 0, 0, 0
	if !r.carry {
		r.arena, r.rows = r.arena[:0], r.rows[:0]
		return
	}
	c := r.rows[len(r.rows)-1]
	n := copy(r.arena, r.arena[c.key0:c.key1])
	r.arena = r.arena[:n]
	c.key1 -= c.key0
	c.key0 = 0
	r.rows = append(r.rows[:0], c)
	r.carry = false
}

// nextRow reads lines up to the next well-formed row of a batched format, counting the
// malformed ones; io.EOF after the last. The format's parser is chosen here, by a direct
// call: through a table of parsers, w would escape and cost an allocation a line.
func (r *Reader) nextRow() (row, []byte, error) {
	for {
		line, err := r.readLine()
		if err == errTooLong {
			err = r.checkBad(false)
			if err == nil {
				continue
			}
		}
		if err != nil {
			return row{}, nil, err
		}
		var w row
		var key []byte
		var why string
		if r.opt.Format == Twitter {
			key, why = r.parseTwitter(line, &w)
		} else {
			key, why = r.parseKVCache(line, &w)
		}
		if why == "header" {
			continue
		}
		if why == "" {
			why = r.splitKey(key, &r.sp)
		}
		if why == "" {
			w.line = r.lines
			return w, key, nil
		}
		if err := r.reject(line, why); err != nil {
			return row{}, nil, err
		}
	}
}

// addRow adds row w with its key to the batch and says whether the batch takes more: not
// after the first row of a later second (carried to the next batch) or at maxBatch rows.
func (r *Reader) addRow(w row, key []byte) bool {
	w.key0 = int32(len(r.arena))
	r.arena = append(r.arena, key...)
	w.key1 = int32(len(r.arena))
	if len(r.rows) > 0 && w.sec > r.rows[0].sec {
		// The first row of the next second: it waits for the next batch.
		r.rows = append(r.rows, w)
		r.carry = true
		return false
	}
	if len(r.rows) > 0 {
		w.sec = r.rows[0].sec // a row out of order joins the second being read
	}
	r.rows = append(r.rows, w)
	return len(r.rows) < maxBatch // a second this busy is spread as far as it was read
}

// countBatch sums the operations of the batch's rows (not the carried one).
func (r *Reader) countBatch() {
	r.batchOps = 0
	end := len(r.rows)
	if r.carry {
		end--
	}
	for _, w := range r.rows[:end] {
		r.batchOps += int64(w.count)
	}
}

// maxBatch bounds the rows of one second held at once: 32 MB of rows and their keys.
const maxBatch = 1 << 20

// splitKey records where the key's parts end, or says why it cannot be split.
func (r *Reader) splitKey(key []byte, sp *split) string {
	if len(key) == 0 {
		return "empty key"
	}
	if len(key) > 1<<20 {
		return "key longer than 1 MB"
	}
	sp.nparts = 1
	if !r.split {
		return ""
	}
	rest, off := key, int32(0)
	for int(sp.nparts) < len(r.names) {
		i := bytes.IndexByte(rest, r.delim)
		if i < 0 {
			return fmt.Sprintf("key has %d parts split on %q, want %d", sp.nparts, r.delim, len(r.names))
		}
		sp.ends[sp.nparts-1] = off + int32(i)
		off += int32(i) + 1
		rest = rest[i+1:]
		sp.nparts++
	}
	return ""
}

// setParts points the record's parts into key, as r.sp splits it.
func (r *Reader) setParts(key []byte) {
	prev := int32(0)
	for p := 0; p < int(r.sp.nparts)-1; p++ {
		r.rec.Parts[p] = key[prev:r.sp.ends[p]]
		prev = r.sp.ends[p] + 1
	}
	r.rec.Parts[r.sp.nparts-1] = key[prev:]
}

// lastField cuts line at its last comma: what precedes it and the field after it.
func lastField(line []byte) (rest, field []byte, ok bool) {
	i := bytes.LastIndexByte(line, ',')
	if i < 0 {
		return line, nil, false
	}
	return line[:i], line[i+1:], true
}

// cutRow cuts a line of a batched format from the right: its last len(f) fields into f
// (the last first), then its first field, the time, and the key between them (which may
// hold commas); ok is false when the line has fewer fields.
func cutRow(line []byte, f [][]byte) (ts, key []byte, ok bool) {
	rest := line
	for i := range f {
		if rest, f[i], ok = lastField(rest); !ok {
			return nil, nil, false
		}
	}
	i := bytes.IndexByte(rest, ',')
	if i < 0 {
		return nil, nil, false
	}
	return rest[:i], rest[i+1:], true
}

// badTime is why a line whose time does not parse is malformed: "header" on the first
// line (a header row, skipped), else why.
func (r *Reader) badTime(why string) string {
	if r.lines == 1 {
		return "header"
	}
	return why
}

// parseTwitter parses timestamp,key,key size,value size,client id,operation,TTL.
func (r *Reader) parseTwitter(line []byte, w *row) (key []byte, why string) {
	var f [5][]byte // TTL, op, client, value size, key size
	ts, key, ok := cutRow(line, f[:])
	if !ok {
		return nil, "fewer than 7 columns"
	}
	sec, ok := parseInt(ts)
	if !ok {
		return nil, r.badTime("timestamp is not a whole number of seconds")
	}
	code, op, ok := opCode(f[1])
	if !ok {
		return nil, "unknown operation"
	}
	w.sec, w.op, w.code, w.count = sec, op, code, 1
	return key, ""
}

// parseKVCache parses op_time,key,key_size,op,op_count,size,cache_hits,ttl,usecase,sub_usecase.
func (r *Reader) parseKVCache(line []byte, w *row) (key []byte, why string) {
	var f [8][]byte // sub_usecase, usecase, ttl, cache_hits, size, op_count, op, key_size
	ts, key, ok := cutRow(line, f[:])
	if !ok {
		return nil, "fewer than 10 columns"
	}
	ns, ok := parseSeconds(ts)
	if !ok {
		return nil, r.badTime("op_time is not a number of seconds")
	}
	code, op, ok := opCode(f[6])
	if !ok {
		return nil, "unknown operation"
	}
	n, ok := parseInt(f[5])
	if !ok || n < 1 || n > 1e9 {
		return nil, "op_count is not a positive whole number"
	}
	w.sec, w.op, w.code, w.count = floorDiv(ns, 1e9), op, code, int32(n)
	return key, ""
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// nextCSV returns the record of the next well-formed line of a CSV log.
func (r *Reader) nextCSV() (*Record, error) {
	for {
		line, err := r.nextLine()
		if err == io.EOF {
			if err := r.checkBad(true); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			continue
		}
		if why := r.parseCSV(line); why != "" {
			if err := r.reject(line, why); err != nil {
				return nil, err
			}
			continue
		}
		return &r.rec, nil
	}
}

func (r *Reader) parseCSV(line []byte) string {
	r.cols = splitComma(r.cols[:0], line)
	if len(r.cols) != r.ncols {
		// A line with more fields than the header is as malformed as one with fewer:
		// with no quoting (docs/traces.md) a comma in a key cannot be told from a
		// column the header does not name, and cutting the line at the header's last
		// column would keep a key's text before its comma (every key of
		// "N,set,user,N" as "user").
		return fmt.Sprintf("%d columns, the header has %d", len(r.cols), r.ncols)
	}
	ns, ok := parseSeconds(r.cols[r.tsCol])
	if !ok {
		return "ts is not a number of seconds"
	}
	code, op, ok := opCode(bytes.TrimSpace(r.cols[r.opCol]))
	if !ok {
		return "unknown operation"
	}
	rec := &r.rec
	if r.keyCol >= 0 {
		key := r.cols[r.keyCol]
		if why := r.splitKey(key, &r.sp); why != "" {
			return why
		}
		rec.Key = key
		r.setParts(key)
	} else {
		r.scratch = r.scratch[:0]
		for i, c := range r.fieldCols {
			if i > 0 {
				r.scratch = append(r.scratch, ',')
			}
			r.scratch = append(r.scratch, r.cols[c]...)
		}
		rec.Key = r.scratch
		off := 0
		for i, c := range r.fieldCols {
			rec.Parts[i] = r.scratch[off : off+len(r.cols[c])]
			off += len(r.cols[c]) + 1
		}
		if len(rec.Key) == len(r.fieldCols)-1 {
			return "empty key"
		}
	}
	if !r.based {
		r.based, r.base = true, ns
	}
	t := ns - r.base
	if t < r.last {
		t = r.last // out of order: issued with the record before it
	}
	r.last = t
	rec.T, rec.Op, rec.OpCode, rec.Line = t, op, code, r.lines
	return ""
}

// parseInt parses a decimal integer of at most 18 digits (optional sign).
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) > 18 {
		return 0, false
	}
	u, ok := decimal(b)
	if !ok {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// parseSeconds parses a decimal number of seconds ("12", "12.25") into nanoseconds.
func parseSeconds(b []byte) (int64, bool) {
	b = bytes.TrimSpace(b)
	whole, frac, _ := bytes.Cut(b, []byte{'.'})
	neg := len(whole) > 0 && whole[0] == '-'
	if len(whole) > 11 || (len(whole) == 0 && len(frac) == 0) {
		return 0, false
	}
	var s int64
	if len(whole) > 0 {
		var ok bool
		if s, ok = parseInt(whole); !ok {
			return 0, false
		}
	}
	var ns int64
	scale := int64(1e8)
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
		ns += int64(c-'0') * scale
		scale /= 10
	}
	if neg {
		return s*1e9 - ns, true
	}
	return s*1e9 + ns, true
}
