package main

import (
	"crypto/rand"
	"encoding/hex"
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
// the directory holds lockFile, locked with flock(2) by the writer and naming its process,
// so that a second run into it is refused instead of mixing its files with the first's.
// The kernel releases the lock when its holder exits however it ends (SIGKILL included),
// so a lock left by a dead process, whatever pid it names (our own, pid 1 in a container),
// is taken over. markerFile names the results and lists the files the last command wrote.
//
// A command writes its files into a fresh directory beside the target (stageDir), and
// commit swaps the two with one rename (renameat2's RENAME_EXCHANGE), so that a reader, or
// a command interrupted at any point (disk full, SIGKILL), sees either the old set of files
// or the new one, each with its own marker, never a mix. The old set is removed after the
// swap. Where the directory also holds files that shardsim did not write (--force onto a
// directory of other things, a cluster sweep's manifest and points, the current working
// directory), it cannot be swapped whole: the files are then moved in one at a time, the
// marker removed first and written last, so that an interrupted command leaves a directory
// that no marker claims.
const (
	markerFile = ".shardsim"
	lockFile   = ".shardsim.lock"
	stagePart  = ".shardsim-new-" // in the name of a staging directory: .NAME.shardsim-new-XXXX
)

// outDir is an output directory claimed for one command.
type outDir struct {
	dir, name string
	abs       string   // dir, absolute: the swap moves the directory a relative path names
	stage     string   // where the command writes its files, beside abs; "" once swapped
	created   bool     // the command made the directory
	previous  []string // what the last command wrote, from its marker
	lock      *os.File // the locked lockFile, open while the command runs
}

// claimOut checks that dir may receive name's results (claimDir), makes it, locks it for
// this process and makes the staging directory the command writes into (path). close
// releases it.
func claimOut(dir, name string, force bool) (*outDir, error) {
	if err := claimDir(dir, name, force); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, usagef("-o %s: %v", dir, err)
	}
	o := &outDir{dir: dir, name: name, abs: abs}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		o.created = true
	}
	if err := os.MkdirAll(abs, 0o777); err != nil { // the umask decides, as for mkdir(1)
		return nil, err
	}
	if o.lock, err = lockDir(abs, dir); err != nil {
		o.close()
		return nil, err
	}
	if b, err := os.ReadFile(filepath.Join(abs, markerFile)); err == nil {
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for _, l := range lines[1:] {
			if f := strings.TrimSpace(l); f != "" && !strings.HasPrefix(f, "#") {
				o.previous = append(o.previous, f)
			}
		}
	}
	// Staging directories of this target left by a command that died: the lock is ours, so
	// no live command is writing one.
	parent, base := filepath.Split(abs)
	if old, _ := filepath.Glob(filepath.Join(parent, "."+globEscape(base)+stagePart+"*")); len(old) > 0 {
		for _, p := range old {
			os.RemoveAll(p)
		}
	}
	if o.stage, err = mkdirTemp(parent, "."+base+stagePart); err != nil {
		o.close()
		return nil, fmt.Errorf("-o %s: %w", dir, err)
	}
	return o, nil
}

// mkdirTemp makes a new directory in dir named prefix and a random suffix, as os.MkdirTemp
// does but with the mode the umask leaves of 0777 rather than 0700: the staging directory
// becomes the output directory, which a user serving report.html or sharing a lab machine
// expects to have the mode of any directory they make.
func mkdirTemp(dir, prefix string) (string, error) {
	for try := 0; ; try++ {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		name := filepath.Join(dir, prefix+hex.EncodeToString(b[:]))
		err := os.Mkdir(name, 0o777)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, os.ErrExist) || try == 100 {
			return "", err
		}
	}
}

// globEscape escapes the characters filepath.Match reads as a pattern.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}

// path is the directory the command writes its files into until commit.
func (o *outDir) path() string { return o.stage }

// lockDir takes dir's lockFile with flock(2), or says which live process holds it. The
// file's content (the holder's pid) is only for the message: a file nobody holds locked is
// stale, whatever it names. flag is the directory as the user wrote it.
func lockDir(dir, flag string) (*os.File, error) {
	path := filepath.Join(dir, lockFile)
	for attempt := 0; attempt < 5; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("-o %s: %w", flag, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b, _ := os.ReadFile(path)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				who := "another shardsim"
				if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
					who = fmt.Sprintf("another shardsim (process %d)", pid)
				}
				return nil, usagef("-o %s: %s is writing there; wait for it to finish or choose another -o", flag, who)
			}
			return nil, fmt.Errorf("-o %s: locking %s: %w", flag, lockFile, err)
		}
		// The holder before us may have removed the file after we opened it: then the lock
		// is on a file nobody else sees, and we start again.
		st, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(st, now) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
		}
		return f, nil
	}
	return nil, usagef("-o %s: could not take %s", flag, lockFile)
}

// commit makes what the command wrote into path() (written: paths or names inside it) the
// directory's content, and records it in the marker.
func (o *outDir) commit(written []string) error {
	var names []string
	for _, w := range written {
		if rel, err := filepath.Rel(o.stage, w); err == nil && !strings.HasPrefix(rel, "..") {
			w = rel
		} else if rel, err := filepath.Rel(o.dir, w); err == nil && !strings.HasPrefix(rel, "..") {
			w = rel
		}
		names = append(names, filepath.ToSlash(w))
	}
	slices.Sort(names)
	names = slices.Compact(names)
	text := o.name + "\n# the files the last command wrote here:\n" + strings.Join(names, "\n") + "\n"
	if o.whole() {
		if err := o.swap(text); err == nil {
			return nil
		} else if !errors.Is(err, errNoSwap) {
			return err
		}
	}
	return o.moveIn(names, text)
}

// errNoSwap says that the directory could not be swapped and nothing changed.
var errNoSwap = errors.New("the directories could not be swapped")

// whole reports whether the directory holds nothing but what shardsim wrote (the marker,
// the lock, the files the marker lists) and is not the working directory or above it, so
// that it can be replaced whole.
func (o *outDir) whole() bool {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(o.abs, wd); err == nil && !strings.HasPrefix(rel, "..") {
			return false
		}
	}
	ents, err := os.ReadDir(o.abs)
	if err != nil {
		return false
	}
	for _, e := range ents {
		n := e.Name()
		if n == markerFile || n == lockFile || strings.HasPrefix(n, ".shards.spool-") || strings.Contains(n, ".tmp-") {
			continue
		}
		if !slices.Contains(o.previous, n) || !e.Type().IsRegular() {
			return false
		}
	}
	return true
}

// swap writes the marker and a lock of ours into the staging directory and exchanges it
// with the target in one rename; then it removes the old set. errNoSwap: nothing changed.
func (o *outDir) swap(marker string) error {
	if err := atomicfile.Write(filepath.Join(o.stage, markerFile), []byte(marker)); err != nil {
		return err
	}
	lock, err := lockDir(o.stage, o.dir)
	if err != nil {
		return err
	}
	if err := exchange(o.stage, o.abs); err != nil {
		lock.Close()
		os.Remove(filepath.Join(o.stage, lockFile))
		os.Remove(filepath.Join(o.stage, markerFile))
		return fmt.Errorf("%w: %v", errNoSwap, err)
	}
	// The target is the new set, locked by us; the staging path holds the old set.
	old := o.lock
	o.lock = lock
	os.RemoveAll(o.stage)
	old.Close()
	o.stage = ""
	return nil
}

// moveIn is commit where the directory cannot be swapped whole: the marker goes first, the
// new files are renamed in one by one, what the previous command wrote and this one did
// not is removed, and the marker is written last.
func (o *outDir) moveIn(names []string, marker string) error {
	if err := os.Remove(filepath.Join(o.abs, markerFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, n := range names {
		if err := os.Rename(filepath.Join(o.stage, n), filepath.Join(o.abs, n)); err != nil {
			return fmt.Errorf("-o %s: %w", o.dir, err)
		}
	}
	for _, old := range o.previous {
		// Only plain names inside dir that this tool writes; never a path, a dot file or
		// anything the marker's text might point elsewhere with.
		if slices.Contains(names, old) || strings.ContainsAny(old, `/\`) || strings.HasPrefix(old, ".") {
			continue
		}
		if st, err := os.Lstat(filepath.Join(o.abs, old)); err != nil || !st.Mode().IsRegular() {
			continue
		}
		os.Remove(filepath.Join(o.abs, old))
	}
	return atomicfile.Write(filepath.Join(o.abs, markerFile), []byte(marker))
}

// close removes the staging directory (the command did not commit), releases the lock,
// and removes the directory when this command made it and left it empty (it failed before
// writing anything).
func (o *outDir) close() {
	if o.stage != "" {
		os.RemoveAll(o.stage)
		o.stage = ""
	}
	if o.lock != nil {
		// Removed while still held, so that a command waiting on it sees it gone (lockDir).
		os.Remove(filepath.Join(o.abs, lockFile))
		o.lock.Close()
		o.lock = nil
	}
	if o.created {
		os.Remove(o.abs) // fails, as it should, unless empty
	}
}

// checkOutFile checks, before any work, that the file an output flag names can be written
// and is none of the command's inputs (writing it would replace the scenario or the log it
// reads): its directory exists and takes new files, and it is absent or a regular file
// (atomicfile.CheckTarget: not a directory, a device or a named pipe). Every flag that
// names a file to write checks it here.
func checkOutFile(flag, path string, inputs ...string) error {
	st, err := os.Stat(path)
	if err == nil && st.IsDir() {
		return usagef("%s %s: is a directory; name a file", flag, path)
	}
	if err := atomicfile.CheckTarget(path); err != nil {
		return usagef("%s %s: %v: name a regular file, or a new one", flag, path, err)
	}
	for _, in := range inputs {
		if ist, ierr := os.Stat(in); err == nil && ierr == nil && os.SameFile(st, ist) {
			return usagef("%s %s: is %s, which this command reads; writing it would replace it: choose another file", flag, path, in)
		}
	}
	dir := filepath.Dir(path)
	dst, err := os.Stat(dir)
	switch {
	case err != nil:
		return usagef("%s %s: the directory %s does not exist", flag, path, dir)
	case !dst.IsDir():
		return usagef("%s %s: %s is not a directory", flag, path, dir)
	}
	f, err := os.CreateTemp(dir, ".shardsim-probe-*")
	if err != nil {
		return usagef("%s %s: %s", flag, path, unwritable(dir, dir, err))
	}
	f.Close()
	return os.Remove(f.Name())
}
