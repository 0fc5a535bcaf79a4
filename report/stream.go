package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/spec"
)

// Streams reports whether a variant of shards shards over windows windows should stream
// its shard series (spec.StreamShardCells: about 40 MB of them).
func Streams(shards, windows int) bool {
	return int64(shards)*int64(windows) > spec.StreamShardCells
}

// StreamSink is the window sink of a streamed run (sim.Model.Sink): it keeps the run's
// metrics.ShardDigest and writes each window's shards.csv cells (ops, utilization and
// max_queue, formatted as shardsCSV formats them) to a spool file, one line per shard and
// window, from which WriteFiles makes shards.csv once the run-wide columns are known. The
// spool is a hidden temporary file in the output directory; Close removes it.
type StreamSink struct {
	digest  *metrics.ShardDigest
	windows int
	f       *os.File
	w       *bufio.Writer
	err     error
	line    []byte
}

// NewStreamSink makes the sink of a run over windows windows, its spool in dir.
func NewStreamSink(dir string, windows int) (*StreamSink, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
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

// ShardWindow takes window w's shard series (sim.WindowSink).
func (k *StreamSink) ShardWindow(w int, s *sim.ShardWindow) {
	if k.digest == nil {
		k.digest = metrics.NewShardDigest(len(s.Busy), len(s.Capacity), k.windows,
			metrics.DigestLines{HotLoad: HotLoad, HotRatio: hotRatio, CoLoad: placementShardLoad, CoRatio: diagSkewRatio})
	}
	k.digest.ShardWindow(w, s)
	if k.err != nil {
		return
	}
	for sh := range s.Busy {
		b := strconv.AppendInt(k.line[:0], s.Ops[sh], 10)
		b = append(b, ',')
		b = strconv.AppendFloat(b, util(s.Utilization(sh)), 'f', -1, 64)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(s.MaxQueue[sh]), 10)
		b = append(b, '\n')
		k.line = b
		if _, err := k.w.Write(b); err != nil {
			k.err = err
			return
		}
	}
}

// Close removes the spool.
func (k *StreamSink) Close() error {
	k.f.Close()
	return os.Remove(k.f.Name())
}

// streamedShardsCSV writes run's part of shards.csv from its spool: the same bytes
// seriesCSV and shardsCSV write for a run that kept its series.
func streamedShardsCSV(w io.Writer, sc *spec.Scenario, run Run, k *StreamSink) error {
	if k.err != nil {
		return fmt.Errorf("spooling the shard series: %w", k.err)
	}
	if err := k.w.Flush(); err != nil {
		return fmt.Errorf("spooling the shard series: %w", err)
	}
	if _, err := k.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
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
	in := bufio.NewReaderSize(k.f, 1<<20)
	var lead bytes.Buffer
	for win := 0; win < r.Windows; win++ {
		t := sim.Time(win) * r.Window
		lead.Reset()
		cw := escape.NewCSVWriter(&lead)
		cw.Write([]string{run.Variant.Name, spec.FormatClock(sc.Start, t), num(t.Seconds())})
		cw.Flush()
		lb := append(bytes.TrimSuffix(lead.Bytes(), []byte("\n")), ',')
		for s := range r.Shards {
			line, err := in.ReadSlice('\n')
			if err != nil {
				return fmt.Errorf("reading the spooled shard series: %w", err)
			}
			w.Write(lb)
			w.Write(head[s])
			w.Write(line[:len(line)-1])
			if _, err := w.Write(tail[s]); err != nil {
				return err
			}
		}
	}
	return nil
}
