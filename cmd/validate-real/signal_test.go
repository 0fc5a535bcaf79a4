package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs, in a child the tests start, either main itself (VALIDATE_REAL_MAIN: its
// arguments, one a line) or a stand-in for a run that a signal interrupts
// (VALIDATE_REAL_SIGNAL_CHILD).
func TestMain(m *testing.M) {
	if args := os.Getenv("VALIDATE_REAL_MAIN"); args != "" {
		os.Args = append([]string{"validate-real"}, strings.Split(args, "\n")...)
		main()
		os.Exit(0)
	}
	if os.Getenv("VALIDATE_REAL_SIGNAL_CHILD") != "" {
		signalChild()
	}
	os.Exit(m.Run())
}

// signalChild makes the temporary directory with a file in it and starts a server
// (sleep stands in for one) as run does, says where they are, and waits for a signal.
func signalChild() {
	onSignal(func() {})
	tmp, err := makeTemp()
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, "PG_VERSION"), []byte("17\n"), 0o644)
	}
	var s *server
	if err == nil {
		s, err = start("sleeper", filepath.Join(tmp, "sleeper.log"), syscall.SIGTERM, nil, tmp, "/bin/sleep", "100")
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	fmt.Println("ready", tmp, s.cmd.Process.Pid)
	time.Sleep(time.Minute)
	os.Exit(4)
}

// On SIGINT or SIGTERM the command stops its servers, removes its temporary directory
// (PostgreSQL's data directory lives there: tens of MB) and exits with status 2.
func TestSignalRemovesTemp(t *testing.T) {
	if _, err := os.Stat("/bin/sleep"); err != nil {
		t.Skip(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "VALIDATE_REAL_SIGNAL_CHILD=1", "TMPDIR="+t.TempDir())
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		var tmp string
		var pid int
		if _, err := fmt.Sscanf(line, "ready %s %d", &tmp, &pid); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: the child said %q", sig, line)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%v: the child ended with %v; want exit status 2", sig, err)
		}
		if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: the temporary directory %s is still there (%v)", sig, tmp, err)
		}
		if err := syscall.Kill(pid, 0); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%v: the server (pid %d) still runs", sig, pid)
		}
	}
}

// A report path that cannot be written is refused at once, with exit status 2, before
// any server starts, rather than after the whole run.
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	os.Mkdir(filepath.Join(dir, "w-data.json"), 0o755) // the data file's path, beside w.md
	for _, tc := range []struct{ out, want string }{
		{filepath.Join(dir, "w.md"), "its data file " + filepath.Join(dir, "w-data.json") + ": is a directory"},
		{filepath.Join(dir, "nodir", "v.md"), "nodir: no such file or directory"},
		{filepath.Join(file, "v.md"), "is not a directory"},
		{dir, "is a directory"},
		{"/dev/null", "is not a regular file"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		// -shardsim names a file that is there, so that only -o is wrong.
		cmd.Env = append(os.Environ(), "VALIDATE_REAL_MAIN=-o\n"+tc.out+"\n-shardsim\n"+os.Args[0])
		start := time.Now()
		b, err := cmd.CombinedOutput()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(b), "-o "+tc.out+": ") || !strings.Contains(string(b), tc.want) {
			t.Errorf("-o %s: %v, %q; want exit status 2 and a message naming -o and %q", tc.out, err, b, tc.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("-o %s: refused after %v; want it at once", tc.out, d)
		}
	}
}

// The fourth port (the Redis under a CPU quota) taken: exit status 2 before anything
// starts, naming the port.
func TestQuotaPortInUse(t *testing.T) {
	if _, err := findTools(); err != nil {
		t.Skip(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port
	base := busy - 3
	for p := base; p < busy; p++ {
		if portFree(p) != nil || portFree(p+10000) != nil {
			t.Skipf("port %d or %d is taken too", p, p+10000)
		}
	}
	out := filepath.Join(t.TempDir(), "v.md")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("VALIDATE_REAL_MAIN=-o\n%s\n-shardsim\n%s\n-redis-port\n%d", out, os.Args[0], base))
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(b), fmt.Sprintf("port %d is already in use", busy)) {
		t.Errorf("%v, %q; want exit status 2 naming port %d", err, b, busy)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written", out)
	}
}
