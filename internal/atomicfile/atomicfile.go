// Package atomicfile replaces a file whole or not at all: it writes a temporary file in
// the target's directory and renames it over the target. A reader sees the old file or the
// complete new one, never half of one, and a failed write leaves nothing behind.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write replaces path with data, mode 0644. A symbolic link at path is replaced by the
// file, not written through: the rename puts the new file in the link's place.
func Write(path string, data []byte) (err error) {
	return WriteWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// CheckTarget says why path cannot be replaced by a file: it is (or a symbolic link at it
// names) something other than a regular file, such as a directory, a device or a named
// pipe, which the rename would replace with a file (a device node lost, a reader of the
// pipe never served). A path that does not exist, or a regular file, gives nil.
func CheckTarget(path string) error {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil // absent (or unreadable: the write says why)
	}
	what := "not a regular file"
	switch m := st.Mode(); {
	case m.IsDir():
		what = "a directory"
	case m&os.ModeCharDevice != 0:
		what = "a character device"
	case m&os.ModeDevice != 0:
		what = "a block device"
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("is %s, not a regular file; writing would replace it with a file", what)
}

// WriteWith replaces path, as Write does, with what write writes: through a buffer to the
// temporary file, so that the content need not be held in memory whole. When write fails
// nothing is left behind and the target is not touched.
func WriteWith(path string, write func(io.Writer) error) (err error) {
	if err := CheckTarget(path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
