package report

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"sync"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// StreamSink is the window sink of a streamed run (sim.Model.Sink): it keeps the run's
// metrics.ShardDigest and writes each window's shard cells (ops, utilization rounded as
// the series files round it, and max_queue) to a spool file, one cell per shard and window
// in three varints, from which shards.csv or shards.parquet is made once the run is over
// and its run-wide columns are known (by a SeriesWriter or WriteFilesAs). The spool is a
// hidden temporary file in the staging output directory; Close removes it.
type StreamSink struct {
	digest  *metrics.ShardDigest
	windows int
	f       *os.File
	w       *bufio.Writer
	err     error
	line    []byte
	flush   sync.Once // the spool's last bytes, written when it is first read
}

// NewStreamSink makes the sink of a run over windows windows, its spool in dir.
func NewStreamSink(dir string, windows int) (*StreamSink, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil { // the umask decides, as for mkdir(1)
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".shards.spool-*")
	if err != nil {
		return nil, err
	}
	return &StreamSink{windows: windows, f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// ShardDigest returns the run's digest (see metrics.DigestOf).
func (k *StreamSink) ShardDigest() *metrics.ShardDigest { return k.digest }

// utilScale is util's rounding: a utilization is spooled as the integer
// math.Round(x*utilScale), and metrics.Util(x) is exactly that integer over utilScale.
const utilScale = 1e4

// ShardWindow takes window w's shard series (sim.WindowSink).
func (k *StreamSink) ShardWindow(w int, s *sim.ShardWindow) {
	if k.digest == nil {
		k.digest = metrics.NewShardDigest(len(s.Busy), len(s.Capacity), k.windows,
			diagnose.Lines)
	}
	k.digest.ShardWindow(w, s)
	if k.err != nil {
		return
	}
	b := k.line[:0]
	for sh := range s.Busy {
		b = binary.AppendVarint(b, s.Ops[sh])
		b = binary.AppendVarint(b, int64(math.Round(s.Utilization(sh)*utilScale)))
		b = binary.AppendVarint(b, int64(s.MaxQueue[sh]))
		if len(b) >= 64<<10 {
			if _, err := k.w.Write(b); err != nil {
				k.err = err
				return
			}
			b = b[:0]
		}
	}
	k.line = b
	if _, err := k.w.Write(b); err != nil {
		k.err = err
	}
}

// Close removes the spool.
func (k *StreamSink) Close() error {
	k.f.Close()
	return os.Remove(k.f.Name())
}

// shardCell is one shard's cells of one window, as spooled.
type shardCell struct {
	ops      int64
	util     float64
	maxQueue int32
}

// spoolReader reads a spool's cells back in the order they were written, from a file
// handle of its own: the series files that read one spool (shards.csv and
// shards.parquet) are written at the same time (SeriesWriter).
type spoolReader struct {
	f  *os.File
	in *bufio.Reader
}

// reader flushes the spool, once its run is over, and returns a reader of it from its
// first cell; the caller closes it.
func (k *StreamSink) reader() (*spoolReader, error) {
	k.flush.Do(func() {
		if k.err == nil {
			k.err = k.w.Flush()
		}
	})
	if k.err != nil {
		return nil, fmt.Errorf("spooling the shard series: %w", k.err)
	}
	f, err := os.Open(k.f.Name())
	if err != nil {
		return nil, fmt.Errorf("reading the spooled shard series: %w", err)
	}
	return &spoolReader{f, bufio.NewReaderSize(f, 1<<20)}, nil
}

func (r *spoolReader) close() { r.f.Close() }

func (r *spoolReader) next() (shardCell, error) {
	ops, err := binary.ReadVarint(r.in)
	if err != nil {
		return shardCell{}, fmt.Errorf("reading the spooled shard series: %w", err)
	}
	u, err := binary.ReadVarint(r.in)
	if err != nil {
		return shardCell{}, fmt.Errorf("reading the spooled shard series: %w", err)
	}
	q, err := binary.ReadVarint(r.in)
	if err != nil {
		return shardCell{}, fmt.Errorf("reading the spooled shard series: %w", err)
	}
	return shardCell{ops: ops, util: float64(u) / utilScale, maxQueue: int32(q)}, nil
}

// streamedShardsCSV writes run's part of shards.csv from its spool: the same bytes
// seriesCSV and shardsCSV write for a run that kept its series.
func streamedShardsCSV(w io.Writer, sc *metrics.Scenario, run Run, k *StreamSink) error {
	in, err := k.reader()
	if err != nil {
		return err
	}
	defer in.close()
	r := run.Result
	shards := metrics.Of(r).Shards
	// Each row is the window's lead, the shard and its node, the spooled cells and the
	// shard's run-wide cells; only the lead can need quoting, and it is quoted by a
	// csv.Writer as seriesCSV's would.
	head := make([][]byte, len(r.Shards))
	tail := make([][]byte, len(r.Shards))
	for s := range r.Shards {
		head[s] = fmt.Appendf(nil, "%d,%d,", s, r.Shards[s].Node)
		tail[s] = fmt.Appendf(nil, ",%s,%s\n", optNum(optMs(shards[s].P99)), rawCount(shards[s].Failures))
	}
	var lead bytes.Buffer
	var line []byte
	for win := range coveredWindows(r) {
		t := sim.Time(win) * r.Window
		lead.Reset()
		cw := escape.NewCSVWriter(&lead)
		cw.Write([]string{run.Variant.Name, units.Clock(sc.Start, t, units.TimeOfDay), num(t.Seconds())})
		cw.Flush()
		lb := append(bytes.TrimSuffix(lead.Bytes(), []byte("\n")), ',')
		for s := range r.Shards {
			c, err := in.next()
			if err != nil {
				return err
			}
			line = append(line[:0], lb...)
			line = append(line, head[s]...)
			line = strconv.AppendInt(line, c.ops, 10)
			line = append(line, ',')
			line = strconv.AppendFloat(line, c.util, 'f', -1, 64)
			line = append(line, ',')
			line = strconv.AppendInt(line, int64(c.maxQueue), 10)
			line = append(line, tail[s]...)
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
	}
	return nil
}
