package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A server is one process this command started. Every server is stopped by its pid when
// the command ends, however it ends (stopAll).
type server struct {
	name string
	cmd  *exec.Cmd
	stop syscall.Signal // the signal that shuts it down cleanly
	log  string         // its log file, quoted when it dies

	mu      sync.Mutex
	exited  bool
	stopped bool // stopped on purpose before the end (stopNow): not a death
	err     error
	done    chan struct{}
}

var (
	serversMu sync.Mutex
	servers   []*server
	stopping  bool
)

// start starts a server as a child process with its output in logPath; cred, when not nil,
// runs it as that user (PostgreSQL refuses to run as root).
func start(name, logPath string, stop syscall.Signal, cred *syscall.Credential, dir string, bin string, args ...string) (*server, error) {
	serversMu.Lock()
	defer serversMu.Unlock()
	if stopping {
		return nil, errors.New("stopping")
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group, so that a Ctrl-C at the terminal reaches this command only,
	// which then stops the server in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred, Pdeathsig: syscall.SIGKILL}
	if cred != nil {
		chownFile(logPath, cred)
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("%s: cannot start %s: %w", name, bin, err)
	}
	s := &server{name: name, cmd: cmd, stop: stop, log: logPath, done: make(chan struct{})}
	servers = append(servers, s)
	go func() {
		err := cmd.Wait()
		logf.Close()
		s.mu.Lock()
		s.exited, s.err = true, err
		s.mu.Unlock()
		close(s.done)
	}()
	return s, nil
}

// alive returns an error naming the server when it has exited.
func (s *server) alive() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exited || s.stopped {
		return nil
	}
	return fmt.Errorf("%s (pid %d) exited (%v); the end of its log %s:\n%s", s.name, s.cmd.Process.Pid, s.err, s.log, tail(s.log, 6))
}

// anyDead returns the error of the first server that has exited, nil if all run.
func anyDead() error {
	serversMu.Lock()
	defer serversMu.Unlock()
	for _, s := range servers {
		if err := s.alive(); err != nil {
			return err
		}
	}
	return nil
}

// stopNow stops the server before the end (to start it again with other settings): its
// stop signal, then SIGKILL after 10 s; it is then not reported as dead.
func (s *server) stopNow() error {
	s.mu.Lock()
	s.stopped = true
	exited := s.exited
	s.mu.Unlock()
	if exited {
		return nil
	}
	_ = s.cmd.Process.Signal(s.stop)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return nil
}

// stopAll stops every server started, newest first: its stop signal, then SIGKILL after
// 10 s. It returns the pids it stopped.
func stopAll() []string {
	serversMu.Lock()
	stopping = true
	list := append([]*server(nil), servers...)
	serversMu.Unlock()
	var stopped []string
	for i := len(list) - 1; i >= 0; i-- {
		s := list[i]
		pid := s.cmd.Process.Pid
		s.mu.Lock()
		running := !s.exited
		s.mu.Unlock()
		if running {
			_ = s.cmd.Process.Signal(s.stop)
			select {
			case <-s.done:
			case <-time.After(10 * time.Second):
				_ = s.cmd.Process.Kill()
				<-s.done
			}
		}
		stopped = append(stopped, fmt.Sprintf("%s %d", s.name, pid))
	}
	return stopped
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "  (" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

// portFree returns an error when something already listens on the loopback port.
func portFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("port %d is already in use on 127.0.0.1 (another server?): choose free ports with -redis-port", port)
	}
	return l.Close()
}

// waitFor polls ready until it succeeds, the server exits or the timeout passes.
func waitFor(s *server, timeout time.Duration, ready func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		if err := s.alive(); err != nil {
			return err
		}
		err := ready()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s (pid %d) did not become ready in %s: %v; the end of its log %s:\n%s", s.name, s.cmd.Process.Pid, timeout, err, s.log, tail(s.log, 6))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Tools are the server programs, found on PATH or where Debian's packages put them.
type tools struct {
	initdb, postgres, redisServer, redisCLI string
	pgbench, redisBenchmark                 string
	taskset                                 string // "" when absent: the quota experiment runs unpinned
	pgVersion, redisVersion                 string
}

func findTools() (tools, error) {
	var t tools
	var missing []string
	pgBin := ""
	if dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin"); len(dirs) > 0 {
		sort.Strings(dirs)
		pgBin = dirs[len(dirs)-1]
	}
	look := func(name, alt string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		if alt != "" {
			if _, err := os.Stat(filepath.Join(alt, name)); err == nil {
				return filepath.Join(alt, name)
			}
		}
		return ""
	}
	if t.initdb = look("initdb", pgBin); t.initdb == "" {
		missing = append(missing, "initdb (Debian package postgresql)")
	}
	if t.postgres = look("postgres", pgBin); t.postgres == "" {
		missing = append(missing, "postgres (Debian package postgresql)")
	}
	if t.redisServer = look("redis-server", ""); t.redisServer == "" {
		missing = append(missing, "redis-server (Debian package redis-server)")
	}
	if t.redisCLI = look("redis-cli", ""); t.redisCLI == "" {
		missing = append(missing, "redis-cli (Debian package redis-tools)")
	}
	if t.pgbench = look("pgbench", pgBin); t.pgbench == "" {
		missing = append(missing, "pgbench (Debian package postgresql-client)")
	}
	if t.redisBenchmark = look("redis-benchmark", ""); t.redisBenchmark == "" {
		missing = append(missing, "redis-benchmark (Debian package redis-tools)")
	}
	t.taskset = look("taskset", "")
	if len(missing) > 0 {
		return t, fmt.Errorf("not installed: %s; make validate-real installs them with apt-get", strings.Join(missing, ", "))
	}
	t.pgVersion = firstLine(exec.Command(t.postgres, "--version"))
	t.redisVersion = firstLine(exec.Command(t.redisServer, "--version"))
	return t, nil
}

func firstLine(c *exec.Cmd) string {
	out, err := c.Output()
	if err != nil {
		return "unknown"
	}
	l, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return l
}

// pgUser is the account PostgreSQL runs under: the current user, or, when that is root
// (which PostgreSQL refuses), the "postgres" account that Debian's package creates.
func pgUser() (*syscall.Credential, string, error) {
	if os.Geteuid() != 0 {
		return nil, currentUser(), nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, "", fmt.Errorf("running as root, PostgreSQL needs another account, and the user \"postgres\" (made by Debian's postgresql package) does not exist: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, "postgres", nil
}

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return strconv.Itoa(os.Geteuid())
}

func chownFile(path string, cred *syscall.Credential) {
	if cred != nil {
		_ = os.Chown(path, int(cred.Uid), int(cred.Gid))
	}
}

// runAs runs a short command (initdb, redis-cli) to its end, with a timeout; its output
// is returned in the error when it fails.
func runAs(ctx context.Context, cred *syscall.Credential, timeout time.Duration, bin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}
