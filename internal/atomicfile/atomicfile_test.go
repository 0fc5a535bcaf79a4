package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite checks the three promises: the new content replaces the old whole, a symbolic
// link is replaced rather than written through, and a failed write leaves no temporary file
// and does not touch the target.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := Write(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content %q, want new", b)
	}

	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("data")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the link's target was written through: %q", b)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink != 0 {
		t.Error("the link is still a link")
	}

	// A directory in the target's place makes the rename fail.
	blocked := filepath.Join(dir, "blocked")
	os.MkdirAll(filepath.Join(blocked, "x"), 0o755)
	if err := Write(blocked, []byte("data")); err == nil || !strings.Contains(err.Error(), "writing "+blocked) {
		t.Errorf("writing over a directory: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
	}
}

// TestCheckTarget: an absent path and a regular file can be replaced; a directory and a
// named pipe cannot, and Write refuses the pipe rather than rename a file over it.
func TestCheckTarget(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("x"), 0o644)
	if err := CheckTarget(filepath.Join(dir, "absent")); err != nil {
		t.Errorf("absent: %v", err)
	}
	if err := CheckTarget(file); err != nil {
		t.Errorf("regular file: %v", err)
	}
	if err := CheckTarget(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	fifo := filepath.Join(dir, "p")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	if err := Write(fifo, []byte("x")); err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO), not a regular file") {
		t.Errorf("Write onto a FIFO: %v", err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}
