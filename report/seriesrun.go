package report

import (
	"errors"
	"io"
	"iter"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/atomicfile"
)

// SeriesWriter writes a run's per-window series files (streams, shards, nodes, skew) while
// its variants still run: each file has a goroutine of its own that writes a variant's
// rows as soon as that variant and every one listed before it have finished, so the files
// hold the same bytes as WriteFilesAs writes after the run. When variants run side by
// side and one finishes after the others, the others' rows are written while it runs, on
// the core it leaves free when there is one (docs/performance.md, "100,000 shards end to
// end"). Each file is written through atomicfile: whole, or not at all.
type SeriesWriter struct {
	dir    string
	series Series

	mu      sync.Mutex
	ready   *sync.Cond
	runs    []Run
	have    []bool
	aborted bool
	stop    atomic.Bool // aborted, read by every write of a file

	files map[string]*seriesJob
	wg    sync.WaitGroup
}

// seriesJob is one file being written, and its outcome once done is closed.
type seriesJob struct {
	done chan struct{}
	err  error
}

// errSeriesAborted ends a series file that was aborted (its run failed, or a file written
// after it); the file is not left behind.
var errSeriesAborted = errors.New("the series files were abandoned")

// StartSeries starts writing the series files series asks for into dir, for the n
// variants of sc; Add hands each variant's run over as it finishes. The caller ends with
// WriteFilesAfter once every variant was added, or with Abort.
func StartSeries(dir string, sc *metrics.Scenario, n int, series Series) *SeriesWriter {
	sw := &SeriesWriter{dir: dir, series: series, runs: make([]Run, n), have: make([]bool, n), files: map[string]*seriesJob{}}
	sw.ready = sync.NewCond(&sw.mu)
	for _, f := range seriesFiles(series) {
		j := &seriesJob{done: make(chan struct{})}
		sw.files[f.name] = j
		sw.wg.Add(1)
		go func() {
			defer sw.wg.Done()
			defer close(j.done)
			j.err = atomicfile.WriteWith(filepath.Join(dir, f.name), func(w io.Writer) error {
				if err := f.write(abortable{w, &sw.stop}, sc, sw.inOrder()); err != nil {
					return err
				}
				if sw.isAborted() {
					return errSeriesAborted // the rows stopped early: no file
				}
				return nil
			})
		}()
	}
	return sw
}

// Add hands over variant i's finished run.
func (sw *SeriesWriter) Add(i int, r Run) {
	sw.mu.Lock()
	sw.runs[i], sw.have[i] = r, true
	sw.mu.Unlock()
	sw.ready.Broadcast()
}

// Abort stops the files at their next write and waits until no file is being written: none
// is left behind.
func (sw *SeriesWriter) Abort() {
	sw.stop.Store(true)
	sw.mu.Lock()
	sw.aborted = true
	sw.mu.Unlock()
	sw.ready.Broadcast()
	sw.wg.Wait()
}

func (sw *SeriesWriter) isAborted() bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.aborted
}

// inOrder yields the runs in the order of their variants, each once it was added; it
// ends early when the writer is aborted.
func (sw *SeriesWriter) inOrder() iter.Seq[Run] {
	return func(yield func(Run) bool) {
		for i := range sw.runs {
			sw.mu.Lock()
			for !sw.have[i] && !sw.aborted {
				sw.ready.Wait()
			}
			r, stop := sw.runs[i], sw.aborted
			sw.mu.Unlock()
			if stop || !yield(r) {
				return
			}
		}
	}
}

func (sw *SeriesWriter) has(name string) bool { return sw.files[name] != nil }

// wait waits until the file name is written, and returns its error.
func (sw *SeriesWriter) wait(name string) error {
	j := sw.files[name]
	<-j.done
	return j.err
}

// complete reports whether every variant was added.
func (sw *SeriesWriter) complete() bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return !slices.Contains(sw.have, false)
}

// abortable is a file's writer, which fails once its SeriesWriter is aborted: an aborted
// file stops at its next write (atomicfile buffers them), not at the end of a variant.
type abortable struct {
	w    io.Writer
	stop *atomic.Bool
}

func (a abortable) Write(b []byte) (int, error) {
	if a.stop.Load() {
		return 0, errSeriesAborted
	}
	return a.w.Write(b)
}

// Dir is the directory the files are written into.
func (sw *SeriesWriter) Dir() string { return sw.dir }
