package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutFileNotRegular: every flag that names a file to write refuses a path that is a
// character device or a named pipe, with exit status 2 naming the flag and the path, and
// leaves the node as it was; the atomic rename used to replace it with a regular file (a
// device node destroyed, a pipe's reader never served). The nodes are made in a temporary
// directory: a null device's numbers (1, 3), never the system's own node.
func TestOutFileNotRegular(t *testing.T) {
	tmp := t.TempDir()
	fifo := filepath.Join(tmp, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	nodes := map[string]os.FileMode{"a named pipe (FIFO)": os.ModeNamedPipe}
	dev := filepath.Join(tmp, "dev.svg")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		nodes["a character device"] = os.ModeCharDevice
	} else {
		t.Logf("no device node (mknod: %v): the named pipe only", err)
	}
	paths := map[string]string{"a named pipe (FIFO)": fifo, "a character device": dev}
	log := hostile + "keys.csv"
	for what, mode := range nodes {
		p := paths[what]
		for _, args := range [][]string{
			{"fit", log, "-o", p},
			{"analyze", log, "--log-format", "csv", "--chart", p},
			{"run", "../../testdata/small.toml", "-q", "--no-charts", "-o", filepath.Join(tmp, "run-out"), "--cpuprofile", p},
		} {
			flag := args[len(args)-2]
			if args[0] == "analyze" && !strings.HasSuffix(p, ".svg") {
				continue // --chart wants .png or .svg first
			}
			if args[0] == "run" && mode == os.ModeNamedPipe {
				continue // unchecked, the profile's open would wait for a reader
			}
			code, _, stderr := call(t, args...)
			if want := flag + " " + p + ": is " + what + ", not a regular file"; code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s %s onto %s: exit %d, want 2 and %q: %s", args[0], flag, what, code, want, stderr)
			}
			if st, err := os.Lstat(p); err != nil || st.Mode()&mode == 0 {
				t.Errorf("%s %s: %s is no longer %s (%v)", args[0], flag, p, what, err)
			}
		}
	}
}
