package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestHeaderSearchBounded: a CSV "log" whose first line never ends (64 MB of one byte, as
// a small compressed bomb expands to) is refused after at most maxHeader bytes and the
// reader's buffer, not read whole.
func TestHeaderSearchBounded(t *testing.T) {
	c := &countReader{r: io.LimitReader(zeros{}, 64<<20)}
	_, err := NewReader(c, Options{Format: CSV})
	if err == nil || !strings.Contains(err.Error(), "no header row in the first 1 MB") {
		t.Errorf("error %v", err)
	}
	if c.n > maxHeader+1<<20 {
		t.Errorf("read %d bytes looking for the header, want at most %d", c.n, maxHeader+1<<20)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'A'
	}
	return len(p), nil
}

// TestCorruptCompressed: a gzip log cut short is a CorruptError that says so, and a zstd
// bomb (testdata/hostile/bomb.csv.zst: 38 KB that expand to 1.2 GB) is refused once its
// output passes the bound, not read whole.
func TestCorruptCompressed(t *testing.T) {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	for i := 0; i < 20000; i++ {
		z.Write([]byte("1,read,key-with-some-length\n"))
	}
	z.Close()
	cut := buf.Bytes()[:buf.Len()/2]
	rc, err := Decompress(io.NopCloser(bytes.NewReader(cut)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, rc)
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("a truncated gzip: %v", err)
	}
	f, err := os.Open("../testdata/hostile/bomb.csv.zst")
	if err != nil {
		t.Fatal(err)
	}
	rc, err = Decompress(f)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	if !errors.As(err, &ce) || n > MaxExpansionFloor+1<<20 {
		t.Errorf("the bomb: %d bytes, %v", n, err)
	}
}
