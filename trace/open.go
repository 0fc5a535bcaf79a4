package trace

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/klauspost/compress/zstd"
)

// ErrNotRegular refuses a log path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file (a FIFO, device or directory): a log must be a file, which is read more than once")

// Magic numbers of the compressed formats read transparently (RFC 1952 for gzip, RFC 8878
// for zstd frames).
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Open opens path in fsys and returns its decompressed content: gzip and zstd streams are
// recognized by their first bytes, whatever the file is called. Close releases the file
// and the decompressor.
// A path that is not a regular file (a FIFO, a device, a directory) is refused before it
// is opened: opening a FIFO blocks until something writes to it, and a log is read more
// than once (its rates, then its records).
func Open(fsys fs.FS, path string) (io.ReadCloser, error) {
	if sfs, ok := fsys.(fs.StatFS); ok {
		st, err := sfs.Stat(path)
		if err != nil {
			return nil, err
		}
		if !st.Mode().IsRegular() {
			return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
		}
	}
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	return Decompress(f)
}

// Decompress wraps rc (plain, gzip or zstd, told apart by their magic numbers); closing
// the result closes rc.
func Decompress(rc io.ReadCloser) (io.ReadCloser, error) {
	cr := &counter{r: rc}
	br := bufio.NewReaderSize(cr, 64<<10)
	head, _ := br.Peek(4)
	switch {
	case len(head) >= 2 && head[0] == gzipMagic[0] && head[1] == gzipMagic[1]:
		z, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("gzip: %v", err)
		}
		return &closers{Reader: bound("gzip", z, cr), close: []func() error{z.Close, rc.Close}}, nil
	case len(head) == 4 && string(head) == string(zstdMagic):
		// One goroutine-free decoder: a log is read once, front to back.
		z, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("zstd: %v", err)
		}
		return &closers{Reader: bound("zstd", z, cr), close: []func() error{func() error { z.Close(); return nil }, rc.Close}}, nil
	}
	return &closers{Reader: br, close: []func() error{rc.Close}}, nil
}

// CorruptError is a compressed log that cannot be read to its end: cut short (a copy that
// did not finish), damaged, or expanding far beyond what a log does (a decompression
// bomb). The commands report it as bad input, exit status 2.
type CorruptError struct {
	Format string // gzip or zstd
	Err    error
}

func (e *CorruptError) Error() string {
	if errors.Is(e.Err, io.ErrUnexpectedEOF) {
		return e.Format + ": the compressed file is cut short (unexpected end of its data): was it copied whole?"
	}
	return fmt.Sprintf("%s: the compressed data is damaged or not a log: %v", e.Format, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// MaxExpansion bounds how far a compressed log may expand: past MaxExpansionFloor bytes,
// no more than MaxExpansion times the compressed bytes read. Access logs compress tens of
// times; gzip cannot pass about 1,030 times, and a zstd file that does (a file of one
// repeated byte) is no log.
const (
	MaxExpansion      = 2000
	MaxExpansionFloor = 1 << 30
)

// counter counts the bytes read from a file.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// bounded is a decompressor's output, its errors made CorruptErrors and its expansion
// bounded.
type bounded struct {
	format string
	r      io.Reader
	in     *counter
	out    int64
}

func bound(format string, r io.Reader, in *counter) io.Reader {
	return &bounded{format: format, r: r, in: in}
}

func (b *bounded) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.out += int64(n)
	if b.out > MaxExpansionFloor && b.out > MaxExpansion*max(b.in.n, 1) {
		return n, &CorruptError{Format: b.format, Err: fmt.Errorf("%d compressed bytes expanded past %d bytes, more than %d times their size: a decompression bomb?", b.in.n, b.out, MaxExpansion)}
	}
	if err != nil && err != io.EOF {
		var ce *CorruptError
		if !errors.As(err, &ce) {
			err = &CorruptError{Format: b.format, Err: err}
		}
	}
	return n, err
}

type closers struct {
	io.Reader
	close []func() error
	done  bool
}

func (c *closers) Close() error {
	if c.done {
		return nil
	}
	c.done = true
	var first error
	for _, f := range c.close {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
