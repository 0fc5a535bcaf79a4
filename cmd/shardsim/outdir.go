package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/shardsim/shardsim/internal/atomicfile"
)

// An output directory holds one command's results at a time. While a command writes it,
// the directory holds lockFile (naming the writer's process), so that a second run into it
// is refused instead of mixing its files with the first's. markerFile names the results
// and lists the files the last command wrote; the next command removes the ones it does
// not write again, so no stale chart of a variant that was left out survives.
const (
	markerFile = ".shardsim"
	lockFile   = ".shardsim.lock"
)

// outDir is an output directory claimed for one command.
type outDir struct {
	dir, name string
	created   bool     // the command made the directory
	previous  []string // what the last command wrote, from its marker
	locked    bool
}

// claimOut checks that dir may receive name's results (claimDir), makes it, and locks it
// for this process. close releases it.
func claimOut(dir, name string, force bool) (*outDir, error) {
	if err := claimDir(dir, name, force); err != nil {
		return nil, err
	}
	o := &outDir{dir: dir, name: name}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		o.created = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := o.lock(); err != nil {
		o.close()
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(dir, markerFile)); err == nil {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for _, l := range lines[1:] {
			if f := strings.TrimSpace(l); f != "" && !strings.HasPrefix(f, "#") {
				o.previous = append(o.previous, f)
			}
		}
	}
	return o, nil
}

// lock creates the lock file, or says which live process holds it. A lock left by a
// process that no longer runs is taken over.
func (o *outDir) lock() error {
	path := filepath.Join(o.dir, lockFile)
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			o.locked = true
			return nil
		}
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("-o %s: %w", o.dir, err)
		}
		b, _ := os.ReadFile(path)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if perr == nil && pid > 0 && alive(pid) {
			return usagef("-o %s: another shardsim (process %d) is writing there; wait for it to finish or choose another -o", o.dir, pid)
		}
		os.Remove(path) // left by a process that is gone
	}
	return usagef("-o %s: could not take %s", o.dir, lockFile)
}

// alive reports whether a process with this id runs.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// commit records what this command wrote (names inside dir) and removes what the previous
// command wrote and this one did not.
func (o *outDir) commit(written []string) error {
	var names []string
	for _, w := range written {
		if rel, err := filepath.Rel(o.dir, w); err == nil && !strings.HasPrefix(rel, "..") {
			w = rel
		}
		names = append(names, filepath.ToSlash(w))
	}
	slices.Sort(names)
	for _, old := range o.previous {
		// Only plain names inside dir that this tool writes; never a path, a dot file or
		// anything the marker's text might point elsewhere with.
		if slices.Contains(names, old) || strings.ContainsAny(old, `/\`) || strings.HasPrefix(old, ".") {
			continue
		}
		if st, err := os.Lstat(filepath.Join(o.dir, old)); err != nil || !st.Mode().IsRegular() {
			continue
		}
		os.Remove(filepath.Join(o.dir, old))
	}
	text := o.name + "\n# the files the last command wrote here:\n" + strings.Join(names, "\n") + "\n"
	return atomicfile.Write(filepath.Join(o.dir, markerFile), []byte(text))
}

// close releases the lock, and removes the directory when this command made it and left it
// empty (it failed before writing anything).
func (o *outDir) close() {
	if o.locked {
		os.Remove(filepath.Join(o.dir, lockFile))
		o.locked = false
	}
	if o.created {
		os.Remove(o.dir) // fails, as it should, unless empty
	}
}
