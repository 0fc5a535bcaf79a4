package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"hash/fnv"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func readAll(t *testing.T, src string, opt Options) ([]Record, *Reader, error) {
	t.Helper()
	rd, err := NewReader(strings.NewReader(src), opt)
	if err != nil {
		return nil, nil, err
	}
	var out []Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out, rd, nil
		}
		if err != nil {
			return out, rd, err
		}
		c := *rec
		c.Key = bytes.Clone(rec.Key)
		c.Parts = nil
		for _, p := range rec.Parts {
			c.Parts = append(c.Parts, bytes.Clone(p))
		}
		out = append(out, c)
	}
}

func TestTwitterParsesFromTheRightAndSpreadsSeconds(t *testing.T) {
	src := "100,a:b,3,10,1,get,0\n100,x,y:z,5,10,1,set,0\n101,a:c,3,10,1,delete,0\n"
	recs, _, err := readAll(t, src, Options{Format: Twitter, Delimiter: ":", Names: []string{"ns", "id"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("got %d records, want 3", len(recs))
	}
	// Two rows in second 100: at 1/4 and 3/4 of it; one in 101: at its half.
	wantT := []int64{250e6, 750e6, 1500e6}
	wantKey := []string{"a:b", "x,y:z", "a:c"}
	wantOp := []Op{Read, Write, Write}
	for i, r := range recs {
		if r.T != wantT[i] || string(r.Key) != wantKey[i] || r.Op != wantOp[i] {
			t.Errorf("record %d: t=%d key=%q op=%v, want %d %q %v", i, r.T, r.Key, r.Op, wantT[i], wantKey[i], wantOp[i])
		}
	}
	if string(recs[1].Parts[0]) != "x,y" || string(recs[1].Parts[1]) != "z" {
		t.Errorf("parts of %q: %q", recs[1].Key, recs[1].Parts)
	}
}

func TestKVCacheRowsStandForOpCount(t *testing.T) {
	src := "op_time,key,key_size,op,op_count,size,cache_hits,ttl,usecase,sub_usecase\n" +
		"10,k1,2,GET,3,100,3,0,1,1\n10,k2,2,SET,1,100,0,0,1,1\n12,k1,2,GET,2,100,3,0,1,1\n"
	recs, _, err := readAll(t, src, Options{Format: KVCache})
	if err != nil {
		t.Fatal(err)
	}
	// Four operations in second 10 at 1/8, 3/8, 5/8, 7/8; two in second 12.
	want := []int64{125e6, 375e6, 625e6, 875e6, 2250e6, 2750e6}
	if len(recs) != len(want) {
		t.Fatalf("got %d records, want %d", len(recs), len(want))
	}
	for i, r := range recs {
		if r.T != want[i] {
			t.Errorf("record %d at %d ns, want %d", i, r.T, want[i])
		}
	}
	if recs[3].Op != Write || string(recs[3].Key) != "k2" {
		t.Errorf("record 3: %v %q", recs[3].Op, recs[3].Key)
	}
}

func TestCSVFieldColumnsAndKeyColumn(t *testing.T) {
	recs, rd, err := readAll(t, "ts,op,tenant,id\n0.5,write,t1,7\n1.25,read,t2,8\n", Options{Format: CSV})
	if err != nil {
		t.Fatal(err)
	}
	if got := rd.Names(); len(got) != 2 || got[0] != "tenant" || got[1] != "id" {
		t.Errorf("names %q", got)
	}
	if recs[1].T != 750e6 || string(recs[1].Parts[0]) != "t2" || string(recs[1].Parts[1]) != "8" || recs[1].Op != Read {
		t.Errorf("record 1: %+v", recs[1])
	}
	recs, _, err = readAll(t, "ts,op,key\n3,put,a/b\n", Options{Format: CSV, Delimiter: "/", Names: []string{"x", "y"}})
	if err != nil || len(recs) != 1 || string(recs[0].Parts[1]) != "b" {
		t.Fatalf("key column: %v %+v", err, recs)
	}
}

func TestMalformedLinesAreCountedQuotedAndLimited(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 999; i++ {
		b.WriteString("5,k,1,1,1,get,0\n")
	}
	b.WriteString("5,k,1,1,1,frobnicate,0\n")
	// One bad line in 1000 is at the default limit (0.1%): allowed.
	recs, rd, err := readAll(t, b.String(), Options{Format: Twitter})
	if err != nil || len(recs) != 999 {
		t.Fatalf("%d records, err %v", len(recs), err)
	}
	if _, bad := rd.Lines(); bad != 1 || rd.Malformed()[0].Line != 1000 {
		t.Errorf("bad %d, quoted %+v", bad, rd.Malformed())
	}
	b.WriteString("garbage\n")
	_, _, err = readAll(t, b.String(), Options{Format: Twitter})
	var be *BadError
	if !errors.As(err, &be) || be.Bad != 2 || be.First[1].Line != 1001 {
		t.Fatalf("want a BadError with 2 lines, got %v", err)
	}
	if !strings.Contains(err.Error(), `line 1001: fewer than 7 columns: "garbage"`) {
		t.Errorf("message: %v", err)
	}
}

func TestCompressedLogsReadTransparently(t *testing.T) {
	plain := "7,k,1,1,1,get,0\n8,k,1,1,1,set,0\n"
	var gz, zs bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(plain))
	zw.Close()
	ze, _ := zstd.NewWriter(&zs)
	ze.Write([]byte(plain))
	ze.Close()
	for name, data := range map[string][]byte{"plain": []byte(plain), "gzip": gz.Bytes(), "zstd": zs.Bytes()} {
		rc, err := Decompress(io.NopCloser(bytes.NewReader(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		if string(got) != plain {
			t.Errorf("%s: read %q", name, got)
		}
	}
}

func TestFieldValue(t *testing.T) {
	if FieldValue([]byte("12345")) != 12345 {
		t.Error("a number is itself")
	}
	// Anything but a decimal number of at most 19 digits is FNV-1a (64-bit) mixed by
	// SplitMix64's finalizer. The expected values are computed apart from HashBytes: by
	// hash/fnv and the finalizer written out below, and pinned as numbers (worked out with
	// Python's integers), since shard placement of replayed keys depends on them.
	mix := func(x uint64) uint64 {
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		return x ^ x>>31
	}
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"ab", 11528740771484442951},
		{"ba", 11350892642975063690},
		{"12a", 16109798914920381758},                 // a number then a letter
		{"12345678901234567890", 7823478964386580070}, // 20 digits: too long to be itself
	} {
		h := fnv.New64a()
		h.Write([]byte(c.in))
		if got, viaFNV := FieldValue([]byte(c.in)), mix(h.Sum64()); got != c.want || viaFNV != c.want {
			t.Errorf("FieldValue(%q) = %d, hash/fnv + finalizer = %d, want %d", c.in, got, viaFNV, c.want)
		}
	}
	if FieldValue([]byte("007")) != 7 || FieldValue([]byte("1234567890123456789")) != 1234567890123456789 {
		t.Error("a decimal number of up to 19 digits, leading zeros included, is itself")
	}
	var o TextOrder
	if o.Value([]byte("10")) != 10 || !(o.Value([]byte("b")) > o.Value([]byte("abc"))) {
		t.Error("order values keep order")
	}
}

// BenchmarkReader measures lines per second of each format, from memory (no I/O, no
// decompression); a warm reader allocates nothing per line.
func BenchmarkReader(b *testing.B) {
	for _, f := range []Format{Twitter, KVCache, CSV} {
		var buf bytes.Buffer
		g := Synthetic{Format: f, Lines: 200_000, Rate: 50_000, Keys: 1_000_000, S: 0.99, Reads: 0.8, Seed: 1}
		if err := g.Write(&buf); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run("format="+f.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			lines := 0
			sr := bytes.NewReader(data)
			for i := 0; i < b.N; i++ {
				sr.Reset(data)
				rd, err := NewReader(sr, Options{Format: f, Delimiter: ":", Names: []string{"ns", "kind", "id"}})
				if err != nil {
					b.Fatal(err)
				}
				for {
					_, err := rd.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					lines++
				}
			}
			b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// TestReaderAllocatesNothingPerLine reads 60,000 lines of each format (seed 2, 5,000
// lines a second) and, once 30,000 are read, counts allocations over 1,000 more calls of
// Next: there must be none.
func TestReaderAllocatesNothingPerLine(t *testing.T) {
	for _, f := range []Format{Twitter, KVCache, CSV} {
		var buf bytes.Buffer
		g := Synthetic{Format: f, Lines: 60_000, Rate: 5000, Keys: 100_000, S: 0.99, Reads: 0.8, Seed: 2}
		if err := g.Write(&buf); err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(&buf, Options{Format: f, Delimiter: ":", Names: []string{"ns", "kind", "id"}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 30_000; i++ {
			if _, err := rd.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if n := testing.AllocsPerRun(1000, func() {
			if _, err := rd.Next(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v: %.2f allocations per record, want 0", f, n)
		}
	}
}

// TestLongLineIsMalformed: a line of 5 MB (more than the 4 MB kept) is one malformed line,
// and the reader goes on with the next.
func TestLongLineIsMalformed(t *testing.T) {
	src := "1,k,1,1,1,get,0\n" + strings.Repeat("x", 5<<20) + "\n2,k,1,1,1,set,0\n"
	recs, rd, err := readAll(t, src, Options{Format: Twitter, MaxBad: -1})
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if _, bad := rd.Lines(); bad != 1 || rd.Malformed()[0].Line != 2 || !strings.HasPrefix(rd.Malformed()[0].Why, "line longer") {
		t.Errorf("bad %d, quoted %+v", bad, rd.Malformed())
	}
}
