package trace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// kvHeader is the kvcache format's header row.
const kvHeader = "op_time,key,key_size,op,op_count,size,cache_hits,ttl,usecase,sub_usecase\n"

// TestRatesTakeTimeInLinesNotOpCount: 20 rows of op_count 10^9 (2·10^10 operations) are
// counted in a moment, to the operation, where counting them one by one took an hour.
func TestRatesTakeTimeInLinesNotOpCount(t *testing.T) {
	var b strings.Builder
	b.WriteString(kvHeader)
	for i := range 20 {
		fmt.Fprintf(&b, "%d,k%d,3,%s,1000000000,10,1,0,1,1\n", 1700000000+i/2, i, []string{"GET", "SET"}[i%2])
	}
	rd, err := NewReader(strings.NewReader(b.String()), Options{Format: KVCache})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := Rates(rd)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Rates took %v over 20 lines", d)
	}
	var reads, writes int64
	for i := range r.Reads {
		reads += r.Reads[i]
		writes += r.Writes[i]
	}
	if reads != 1e10 || writes != 1e10 || len(r.Reads) != 10 {
		t.Errorf("counted %d reads and %d writes in %d windows, want 1e10, 1e10 and 10", reads, writes, len(r.Reads))
	}
}

// TestNextRowFoldsNext: Rates by rows gives the counts, windows and end that counting the
// records one by one gives, on a log with rows of several operations, rows out of order
// and seconds with gaps; and a row begun by Next is finished by NextRow.
func TestNextRowFoldsNext(t *testing.T) {
	var b strings.Builder
	b.WriteString(kvHeader)
	for i := range 3000 {
		sec := 1700000000 + i/7 - (i % 3 / 2) // some rows a second behind the one being read
		fmt.Fprintf(&b, "%d,k%d,3,%s,%d,10,1,0,1,1\n", sec, i%97, []string{"GET", "SET", "GET"}[i%3], 1+i%13)
	}
	src := b.String()
	byRow, err := Rates(mustReader(t, src))
	if err != nil {
		t.Fatal(err)
	}
	byOp := &OpRates{Width: 1e9}
	rd := mustReader(t, src)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for rec.T/byOp.Width >= maxRateBins {
			byOp.Reads, byOp.Writes = halve(byOp.Reads), halve(byOp.Writes)
			byOp.Width *= 2
		}
		k := int(rec.T / byOp.Width)
		for len(byOp.Reads) <= k {
			byOp.Reads, byOp.Writes = append(byOp.Reads, 0), append(byOp.Writes, 0)
		}
		if rec.Op == Read {
			byOp.Reads[k]++
		} else {
			byOp.Writes[k]++
		}
		byOp.End = rec.T
	}
	if fmt.Sprint(byRow) != fmt.Sprint(byOp) {
		t.Errorf("by rows %v\nby operations %v", byRow, byOp)
	}
	// Next takes the first operation of a row of 3, NextRow the other two.
	rd = mustReader(t, kvHeader+"10,a,1,GET,3,1,1,0,1,1\n11,b,1,SET,1,1,1,0,1,1\n")
	first, _ := rd.Next()
	if first.T != int64(1e9)/6 {
		t.Errorf("first operation at %d", first.T)
	}
	rec, n, err := rd.NextRow()
	if err != nil || n != 2 || rec.T != int64(5e9)/6 {
		t.Errorf("rest of the row: %d operations at %d (%v), want 2 at %d", n, rec.T, err, int64(5e9)/6)
	}
	rec, n, err = rd.NextRow()
	if err != nil || n != 1 || rec.T != 1.5e9 || string(rec.Key) != "b" {
		t.Errorf("next row: %d operations at %d, key %q (%v)", n, rec.T, rec.Key, err)
	}
}

func mustReader(t *testing.T, src string) *Reader {
	t.Helper()
	rd, err := NewReader(strings.NewReader(src), Options{Format: KVCache})
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// TestMaxExpandedRefusesAtTheRow: a reader bounded to 1,000 operations beyond one a row
// reads a log of rows of 500 (two rows pass, the third is refused at its line, before its
// first operation), and a row of 10^9 is refused at once.
func TestMaxExpandedRefusesAtTheRow(t *testing.T) {
	src := kvHeader + "10,a,1,GET,501,1,1,0,1,1\n10,b,1,GET,501,1,1,0,1,1\n11,c,1,GET,501,1,1,0,1,1\n"
	rd, _ := NewReader(strings.NewReader(src), Options{Format: KVCache, MaxExpanded: 1000})
	n := 0
	var err error
	for {
		if _, err = rd.Next(); err != nil {
			break
		}
		n++
	}
	var oe *OpsError
	if !errors.As(err, &oe) || oe.Line != 4 || n != 1002 {
		t.Errorf("read %d operations, then %v; want 1002, then an OpsError at line 4", n, err)
	}
	rd, _ = NewReader(strings.NewReader(kvHeader+"10,a,1,GET,1000000000,1,1,0,1,1\n"), Options{Format: KVCache, MaxExpanded: MaxVisitedOps})
	start := time.Now()
	if _, err := rd.Next(); !errors.As(err, &oe) || !strings.Contains(err.Error(), "op_count") {
		t.Errorf("a row of 10^9: %v, want an OpsError naming op_count", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing took %v", d)
	}
}

// TestOpenRefusesAFIFO: a FIFO as a log is refused without opening it (an open would
// wait for a writer for ever).
func TestOpenRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "log"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		rc, err := Open(os.DirFS(dir), "log")
		if err == nil {
			rc.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open of a FIFO: %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		// Unblock the open so the test ends.
		if f, err := os.OpenFile(filepath.Join(dir, "log"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("Open of a FIFO blocked")
	}
	if _, err := Open(os.DirFS(dir), "."); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open of a directory: %v", err)
	}
	var _ fs.StatFS = os.DirFS(dir).(fs.StatFS)
}

// TestAnalyzeOneTimestampHasNoRate: 1,000 records at one timestamp span no time, so the
// analysis has no rate windows (it reported 10^6/s in a window and 10^12/s on average),
// while two timestamps a second apart give the count over the covered time.
func TestAnalyzeOneTimestampHasNoRate(t *testing.T) {
	var b strings.Builder
	b.WriteString("ts,op,key\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "1700000000,read,k%d\n", i)
	}
	a, err := Analyze(mustCSV(t, b.String()), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Records != 1000 || a.DurationS != 0 || len(a.Rate) != 0 {
		t.Errorf("%d records over %g s with rate %v; want 1000 over 0 s and no rate", a.Records, a.DurationS, a.Rate)
	}
	b.WriteString("1700000001,read,k0\n")
	a, err = Analyze(mustCSV(t, b.String()), Config{})
	if err != nil {
		t.Fatal(err)
	}
	// One more record a second later: the first window holds the 1,000 records over its
	// whole second; the second window, of which the log covers nothing, is left out.
	if len(a.Rate) != 1 || a.Rate[0].PerS != 1000 {
		t.Errorf("rate %v, want one window at 1000/s", a.Rate)
	}
}

func mustCSV(t *testing.T, src string) *Reader {
	t.Helper()
	rd, err := NewReader(strings.NewReader(src), Options{Format: CSV})
	if err != nil {
		t.Fatal(err)
	}
	return rd
}
