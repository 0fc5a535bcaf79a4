package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/scenarios"
)

// readParquetAsCSV reads a Parquet file with parquet-go's own reader, through its schema
// (not this package's row types), and returns its column names and its rows with each
// value written as the CSV writes it: a null as an empty cell, a double by num's format.
func readParquetAsCSV(t *testing.T, path string) (head []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, c := range pf.Schema().Columns() {
		head = append(head, strings.Join(c, "."))
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	buf := make([]parquet.Row, 256)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			cells := make([]string, len(head))
			for _, v := range row {
				cells[v.Column()] = cellText(t, v)
			}
			rows = append(rows, cells)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return head, rows
}

func cellText(t *testing.T, v parquet.Value) string {
	switch {
	case v.IsNull():
		return ""
	case v.Kind() == parquet.Double:
		return strconv.FormatFloat(v.Double(), 'f', -1, 64)
	case v.Kind() == parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case v.Kind() == parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case v.Kind() == parquet.ByteArray:
		return string(v.ByteArray())
	}
	t.Fatalf("a value of kind %v: the series have no such column", v.Kind())
	return ""
}

// TestParquetMatchesCSV: each series written as Parquet holds the CSV's columns, in its
// order and with its names, and the same rows with the same numbers (every cell compared
// as text, exactly), for runs that keep their shard series and for the same runs streamed
// (shards.parquet from the spool); and the CSV files written beside the Parquet ones
// (--series both) are byte for byte those of --series csv. flash-sale (two variants,
// 20 s) has hot shards and a stampede; saturated.toml windows in which nothing completed
// (null latencies) and undefined skew ratios, so nulls are compared too. Its overloaded
// variant is declared saturated at a backlog of 20,000 rather than 2,000,000 (at about 20 s
// rather than 2,000 s) and the run cut to 10 minutes: 0.5 s of CPU for this test, where the whole hour made it 3.5 s. -short streams
// only flash-sale; make test-long streams saturated.toml too.
func TestParquetMatchesCSV(t *testing.T) {
	nulls := 0
	for _, c := range []struct {
		path      string
		opts      scenarios.Options
		maxQueued int
	}{
		{"../scenarios/flash-sale.toml", scenarios.Options{Sets: []string{`duration="20s"`}, Variants: []string{"0", "1"}}, 0},
		{"../testdata/saturated.toml", scenarios.Options{Sets: []string{`duration="10m"`}}, 20_000},
		// Windows in which a stream completes nothing have empty latency cells: a scan of
		// one every 100 s (a saturated run's series end where it stopped, so its windows
		// after the stop no longer give them).
		{"../testdata/small.toml", scenarios.Options{Sets: []string{"streams.scan.rate=0.01"}}, 0},
	} {
		for _, streamed := range []bool{false, true} {
			if streamed && testing.Short() && c.path == "../testdata/saturated.toml" {
				continue // the saturated hour streamed too: make test-long (flash-sale streams in -short)
			}
			dir := t.TempDir()
			spool := ""
			if streamed {
				spool = dir
			}
			sc, runs := runWithBacklog(t, spool, c.path, c.opts, c.maxQueued)
			if runs[0].Result.Streamed != streamed {
				t.Fatalf("%s: streamed %v, want %v", c.path, runs[0].Result.Streamed, streamed)
			}
			sum := Summarize(sc, runs)
			want, err := WriteFilesAs(dir, sc, runs, sum, nil, SeriesBoth) // the files' paths
			if err != nil {
				t.Fatal(err)
			}
			csvOnly := t.TempDir()
			if _, err := WriteFilesAs(csvOnly, sc, runs, sum, nil, SeriesCSV); err != nil {
				t.Fatal(err)
			}
			// The same files written as the variants finish (SeriesWriter, as run writes
			// them), the last variant handed over first: the same bytes, every file in
			// the same place of the list of paths.
			piped := t.TempDir()
			sw := StartSeries(piped, sc, len(runs), SeriesBoth)
			for i := len(runs) - 1; i >= 0; i-- {
				sw.Add(i, runs[i])
			}
			paths, err := WriteFilesAfter(sw, sc, runs, sum, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != len(want) {
				t.Fatalf("%s: WriteFilesAfter wrote %d files, WriteFilesAs %d", c.path, len(paths), len(want))
			}
			for i, p := range paths {
				if filepath.Base(p) != filepath.Base(want[i]) {
					t.Errorf("%s: file %d is %s, WriteFilesAs's %s", c.path, i, filepath.Base(p), filepath.Base(want[i]))
				}
				before, _ := os.ReadFile(want[i])
				if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, before) {
					t.Errorf("%s (streamed %v): %s written as the variants finished differs from WriteFilesAs's (%v)", c.path, streamed, filepath.Base(p), err)
				}
			}
			for _, name := range []string{"streams", "shards", "nodes", "skew"} {
				b, err := os.ReadFile(filepath.Join(dir, name+".csv"))
				if err != nil {
					t.Fatal(err)
				}
				if only, _ := os.ReadFile(filepath.Join(csvOnly, name+".csv")); !bytes.Equal(b, only) {
					t.Errorf("%s: %s.csv differs between --series both and --series csv", c.path, name)
				}
				want, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				head, rows := readParquetAsCSV(t, filepath.Join(dir, name+".parquet"))
				if strings.Join(head, ",") != strings.Join(want[0], ",") {
					t.Fatalf("%s: %s.parquet's columns\n%v\nwant the CSV's\n%v", c.path, name, head, want[0])
				}
				if len(rows) != len(want)-1 || len(rows) == 0 {
					t.Fatalf("%s: %s.parquet has %d rows, the CSV %d", c.path, name, len(rows), len(want)-1)
				}
				for i, row := range rows {
					for j, cell := range row {
						if cell != want[i+1][j] {
							t.Fatalf("%s (streamed %v): %s row %d, %s: parquet %q, csv %q", c.path, streamed, name, i+1, head[j], cell, want[i+1][j])
						}
						if cell == "" {
							nulls++
						}
					}
				}
			}
		}
	}
	if nulls == 0 {
		t.Error("no null compared: the test does not cover empty cells")
	}
}

// TestSeriesWriterAborted: a SeriesWriter aborted before its last variant leaves no series
// file behind, whole or partial, nor a temporary file, and Abort returns only once no file
// is being written.
func TestSeriesWriterAborted(t *testing.T) {
	sc, runs := runWith(t, "", "../testdata/small.toml", scenarios.Options{Sets: []string{`duration="20s"`}})
	dir := t.TempDir()
	sw := StartSeries(dir, sc, len(runs)+1, SeriesBoth)
	for i := range runs {
		sw.Add(i, runs[i]) // every variant but the last: each file waits for it
	}
	sw.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("an aborted SeriesWriter left %s behind", ents[0].Name())
	}
	// Asked for its files with a variant missing, a writer says so (where it would wait
	// for ever) and leaves nothing.
	other := t.TempDir()
	sw2 := StartSeries(other, sc, len(runs)+1, SeriesBoth)
	for i := range runs {
		sw2.Add(i, runs[i])
	}
	if _, err := WriteFilesAfter(sw2, sc, runs, Summarize(sc, runs), nil); err == nil {
		t.Error("WriteFilesAfter with a variant missing returned no error")
	}
	if ents, _ := os.ReadDir(other); len(ents) != 0 {
		t.Fatalf("WriteFilesAfter with a variant missing left %s behind", ents[0].Name())
	}
	for _, f := range seriesFiles(SeriesBoth) {
		if err := sw.wait(f.name); !errors.Is(err, errSeriesAborted) {
			t.Errorf("%s: error %v, want %v", f.name, err, errSeriesAborted)
		}
	}
}

// failingWriter fails once more than n bytes were written through it: a disk that fills up
// or a writer that is stopped in the middle of a file.
type failingWriter struct {
	w io.Writer
	n int
}

func (f *failingWriter) Write(b []byte) (int, error) {
	if f.n -= len(b); f.n < 0 {
		return 0, errors.New("no space left on device")
	}
	return f.w.Write(b)
}

// TestParquetWholeOrAbsent: a Parquet file whose writing stops part way (here its writer
// fails after 1,000 bytes) is not left behind, nor is its temporary file, and a whole file
// of the same name written before is left untouched: a reader finds the whole file or none.
// WriteFilesAs writes every series through atomicfile.WriteWith, as here.
func TestParquetWholeOrAbsent(t *testing.T) {
	sc, runs := runWith(t, "", "../testdata/small.toml", scenarios.Options{Sets: []string{`duration="20s"`}})
	dir := t.TempDir()
	p := filepath.Join(dir, "shards.parquet")
	write := func(limit int) error {
		return atomicfile.WriteWith(p, func(w io.Writer) error {
			if limit > 0 {
				w = &failingWriter{w: w, n: limit}
			}
			return shardsParquet(w, sc, slices.Values(runs))
		})
	}
	if err := write(1000); err == nil {
		t.Fatal("the write that failed part way reported no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a failed write left %s behind", ents[0].Name())
	}
	if err := write(0); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(p)
	if err := write(len(whole) / 2); err == nil {
		t.Fatal("the second write that failed part way reported no error")
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, whole) {
		t.Error("a failed write changed the whole file written before it")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory after a failed write, want the whole one", len(ents))
	}
	if _, rows := readParquetAsCSV(t, p); len(rows) != len(runs[0].Result.Shards)*runs[0].Result.Windows*len(runs) {
		t.Errorf("shards.parquet holds %d rows, want every shard's windows", len(rows))
	}
}
