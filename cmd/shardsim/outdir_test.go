package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// holdLock takes dir's output lock as a command would and holds it until stdin closes or
// the process is killed; TestMain calls it in a child that TestLockRecovers starts.
func holdLock(dir string) {
	if _, err := lockDir(dir, dir); err != nil {
		fmt.Println(err)
		os.Exit(3)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// TestLockRecovers checks the output lock against its holders: a lock file naming this
// very process (as a container's pid 1 finds the lock its killed predecessor, also pid 1,
// left) is stale and taken over; a live holder refuses the run with exit 2 and its pid; a
// holder killed with SIGKILL, before anyone reaped it (a zombie, whose pid still answers
// kill -0), no longer does.
func TestLockRecovers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	run := func() (int, string) {
		code, _, stderr := call(t, "run", "quickstart", "-q", "--no-charts", "--no-html", "--duration", "5s", "--variant", "0", "-o", dir)
		return code, stderr
	}
	if code, stderr := run(); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	lock := filepath.Join(dir, lockFile)
	os.WriteFile(lock, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	if code, stderr := run(); code != 0 {
		t.Errorf("a stale lock naming our own pid: exit %d, %q (want it taken over)", code, stderr)
	}

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "SHARDSIM_TEST_HOLD_LOCK="+dir)
	in, _ := child.StdinPipe()
	out, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if l, _ := bufio.NewReader(out).ReadString('\n'); l != "locked\n" {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("the child did not take the lock: %q", l)
	}
	want := fmt.Sprintf("another shardsim (process %d) is writing there", child.Process.Pid)
	if code, stderr := run(); code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("a live lock: exit %d, %q (want 2 and %q)", code, stderr, want)
	}
	child.Process.Signal(syscall.SIGKILL)
	// Not reaped yet: the pid is a zombie's, which kill(pid, 0) still finds. Wait until
	// the kernel has closed its files (the last of its threads has exited), which releases
	// its flock.
	for i := 0; i < 200; i++ {
		f, err := os.Open(lock)
		if err != nil {
			break
		}
		free := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
		f.Close()
		if free {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, stderr := run(); code != 0 {
		t.Errorf("the lock of a killed run: exit %d, %q (want it taken over)", code, stderr)
	}
	child.Wait()
}

// snapshot is the content of every file in dir, dot files included, by name.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	m, err := readSet(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkOneSet checks that dir holds either exactly the old set (old) or one whole set of
// new results: a marker that lists every file there but itself and the lock, each listed
// file present, and no staging directory beside it once a command has claimed it again.
func checkOneSet(t *testing.T, dir string, old map[string][32]byte, what string) {
	t.Helper()
	now := snapshot(t, dir)
	delete(now, lockFile) // a killed command's lock is left; it is stale
	same := len(now) == len(old)
	for n, h := range old {
		if now[n] != h {
			same = false
		}
	}
	if same {
		return
	}
	b, err := os.ReadFile(filepath.Join(dir, markerFile))
	if err != nil {
		t.Errorf("%s: the directory is neither the old set nor a marked new one (%d files)", what, len(now))
		return
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 {
		t.Errorf("%s: the marker %q has no list of files", what, b)
		return
	}
	listed := lines[2:]
	var present []string
	for n := range now {
		if n != markerFile {
			present = append(present, n)
		}
	}
	slices.Sort(present)
	if !slices.Equal(present, listed) {
		t.Errorf("%s: the marker lists %v, the directory holds %v", what, listed, present)
	}
	// A new set is that of seed 2: the old one was seed 1.
	if s, _ := os.ReadFile(filepath.Join(dir, "summary.json")); !strings.Contains(string(s), `"seed": 2`) {
		t.Errorf("%s: a changed directory whose summary.json is not the new run's", what)
	}
}

// shardsimBin is a link named shardsim to the test binary, which TestMain runs as the
// command.
func shardsimBin(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "shardsim")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// replaceArgs is the run that the tests of an interrupted replacement write into dir, and
// replace there with another seed's. Seed 1's run, the old set, is made without charts (they
// are two thirds of a run's time): it only has to be a whole set, and a set of other files
// than the new one's. Seed 2's, the replacement, draws them, so that its writing lasts long
// enough for a kill to land in it.
func replaceArgs(dir, seed string) []string {
	args := []string{"run", "quickstart", "-q", "--duration", "20s", "-o", dir, "--seed", seed}
	if seed == "1" {
		args = append(args, "--no-charts")
	}
	return args
}

// replacement holds the runs that the tests of an interrupted replacement share, each made
// once (TestInterruptedReplaceKeepsASet, TestHostileOutputDirectory): seed 2's whole set,
// made apart to compare with, and a replacement of seed 1's results by seed 2's that a
// full disk interrupts (a file size limit of 64 KB makes a later file fail to write).
var replacement struct {
	wholeOnce sync.Once
	bin       string              // a link named shardsim to the test binary
	whole     map[string][32]byte // seed 2's whole set
	wholeErr  error

	diskFullOnce  sync.Once
	dir           string              // the directory replaced
	before, after map[string][32]byte // dir before and after the interrupted replacement
	diskFullErr   error
}

// sharedDirs are the directories of the runs that tests share, which outlive the test that
// made them; TestMain removes them after the tests.
var (
	sharedDirsMu sync.Mutex
	sharedDirs   []string
)

// sharedDir makes a directory for runs that tests share.
func sharedDir(pattern string) (string, error) {
	d, err := os.MkdirTemp("", pattern)
	if err == nil {
		sharedDirsMu.Lock()
		sharedDirs = append(sharedDirs, d)
		sharedDirsMu.Unlock()
	}
	return d, err
}

// removeSharedDirs removes the directories sharedDir made.
func removeSharedDirs() {
	sharedDirsMu.Lock()
	defer sharedDirsMu.Unlock()
	for _, d := range sharedDirs {
		os.RemoveAll(d)
	}
}

// readSet is the content of every file in dir, dot files included, by name (a SHA-256 of
// each).
func readSet(dir string) (map[string][32]byte, error) {
	m := map[string][32]byte{}
	ents, err := os.ReadDir(dir)
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = sha256.Sum256(b)
	}
	return m, err
}

// wholeReplacement returns the link to the test binary that the replacement runs use and
// seed 2's whole set (made by the first test that asks).
func wholeReplacement(t *testing.T) (string, map[string][32]byte) {
	t.Helper()
	r := &replacement
	r.wholeOnce.Do(func() {
		root, err := sharedDir("shardsim-replace-")
		if err != nil {
			r.wholeErr = err
			return
		}
		r.bin = filepath.Join(root, "shardsim")
		if r.wholeErr = os.Symlink(os.Args[0], r.bin); r.wholeErr != nil {
			return
		}
		ref := filepath.Join(root, "whole")
		if out, err := exec.Command(r.bin, replaceArgs(ref, "2")...).CombinedOutput(); err != nil {
			r.wholeErr = fmt.Errorf("seed 2's whole run: %v\n%s", err, out)
			return
		}
		r.whole, r.wholeErr = readSet(ref)
	})
	if r.wholeErr != nil {
		t.Fatal(r.wholeErr)
	}
	return r.bin, r.whole
}

// diskFullReplacement makes the replacement that a full disk interrupts, once, and returns
// it: its directory (which TestInterruptedReplaceKeepsASet goes on to use) and the sets
// there before and after. The caller has checked that prlimit is there.
func diskFullReplacement(t *testing.T) (dir string, before, after map[string][32]byte) {
	t.Helper()
	bin, _ := wholeReplacement(t)
	r := &replacement
	r.diskFullOnce.Do(func() {
		root, err := sharedDir("shardsim-disk-full-")
		if err != nil {
			r.diskFullErr = err
			return
		}
		r.dir = filepath.Join(root, "out")
		if out, err := exec.Command(bin, replaceArgs(r.dir, "1")...).CombinedOutput(); err != nil {
			r.diskFullErr = fmt.Errorf("first run: %v\n%s", err, out)
			return
		}
		if r.before, r.diskFullErr = readSet(r.dir); r.diskFullErr != nil {
			return
		}
		full := exec.Command("prlimit", append([]string{"--fsize=65536", bin}, replaceArgs(r.dir, "2")...)...)
		if out, err := full.CombinedOutput(); err == nil {
			r.diskFullErr = fmt.Errorf("the run under a 64 KB file size limit did not fail:\n%s", out)
			return
		}
		r.after, r.diskFullErr = readSet(r.dir)
	})
	if r.diskFullErr != nil {
		t.Fatal(r.diskFullErr)
	}
	return r.dir, r.before, r.after
}

// TestInterruptedReplaceKeepsASet interrupts a run that replaces an earlier run's results
// in the two ways the issue found them mixed: the disk filling up (a file size limit of
// 64 KB makes a later file fail to write; the replacement TestHostileOutputDirectory checks
// too, made once for both) and SIGKILL while the files are being written. Either leaves the
// old set as it was or the whole new one, and the marker lists exactly the files there; the
// next run takes the directory over.
func TestInterruptedReplaceKeepsASet(t *testing.T) {
	t.Parallel() // its runs are other processes, and it mostly waits for them
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit to limit the file size")
	}
	bin, _ := wholeReplacement(t)
	dir, old, _ := diskFullReplacement(t)
	checkOneSet(t, dir, old, "disk full")

	// -short kills one run, in the middle of its writing; make test-long three, early, in
	// the middle and late.
	kills := []time.Duration{300 * time.Millisecond, 700 * time.Millisecond, 1200 * time.Millisecond}
	if testing.Short() {
		kills = kills[1:2]
	}
	for _, after := range kills {
		cmd := exec.Command(bin, replaceArgs(dir, "2")...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		checkOneSet(t, dir, old, fmt.Sprintf("SIGKILL after %v", after))
		old = snapshot(t, dir)
		delete(old, lockFile)
	}
	if out, err := exec.Command(bin, replaceArgs(dir, "1")...).CombinedOutput(); err != nil {
		t.Fatalf("a run after the interrupted ones: %v\n%s", err, out)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".out"+stagePart+"*"))
	if len(left) > 0 {
		t.Errorf("staging directories left behind: %v", left)
	}
}

// TestOutDirFollowsUmask: an output directory, and the directories made on the way to it,
// get the mode any directory the user makes gets (0777 less the umask), not the 0700 of a
// private temporary directory: a teacher serves report.html from it, a lab shares it.
func TestOutDirFollowsUmask(t *testing.T) {
	for _, tc := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o755}, {0o002, 0o775}, {0o077, 0o700}} {
		old := syscall.Umask(tc.umask)
		parent := filepath.Join(t.TempDir(), "new")
		dir := filepath.Join(parent, "out")
		o, err := claimOut(dir, "test", false)
		if err == nil {
			if err = os.WriteFile(filepath.Join(o.path(), "a.txt"), []byte("x\n"), 0o644); err == nil {
				err = o.commit([]string{"a.txt"})
			}
			o.close()
		}
		syscall.Umask(old)
		if err != nil {
			t.Fatalf("umask %04o: %v", tc.umask, err)
		}
		for _, d := range []string{parent, dir} {
			if st, err := os.Stat(d); err != nil || st.Mode().Perm() != tc.want {
				t.Errorf("umask %04o: %s has mode %v (%v); want %v", tc.umask, d, st.Mode().Perm(), err, tc.want)
			}
		}
	}
}
