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
	br := bufio.NewReaderSize(rc, 64<<10)
	head, _ := br.Peek(4)
	switch {
	case len(head) >= 2 && head[0] == gzipMagic[0] && head[1] == gzipMagic[1]:
		z, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("gzip: %v", err)
		}
		return &closers{Reader: z, close: []func() error{z.Close, rc.Close}}, nil
	case len(head) == 4 && string(head) == string(zstdMagic):
		// One goroutine-free decoder: a log is read once, front to back.
		z, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("zstd: %v", err)
		}
		return &closers{Reader: z, close: []func() error{func() error { z.Close(); return nil }, rc.Close}}, nil
	}
	return &closers{Reader: br, close: []func() error{rc.Close}}, nil
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
