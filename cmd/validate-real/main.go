// Command validate-real checks shardsim against real databases: it starts PostgreSQL and a
// three-node Redis Cluster from the machine's packages in a temporary directory, drives
// them with real clients (jackc/pgx, redis/go-redis), runs the matching shardsim
// scenarios and writes docs/validation.md with the measured and predicted figures side
// by side. Every server it starts is stopped by its pid, and its temporary directory
// removed, before it exits, on SIGINT, SIGTERM or SIGHUP too; the report's path is checked
// before anything starts. See
// docs/validation.md for what each experiment does and why.
//
// Exit status: 0 when every experiment ran (whether or not the figures agree: the file
// says which do), 2 when a server could not start or failed, or the input was bad.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shardsim/shardsim/internal/atomicfile"
)

type config struct {
	short     bool
	out       string
	shardsim  string
	redisPort int
	pgPort    int
	seed      uint64
	noRT      bool
	predict   string // a data file whose measurements to predict again, without servers
}

func main() {
	c := parseFlags()
	ctx, cancel := context.WithCancel(context.Background())
	onSignal(cancel)
	if c.predict != "" {
		rep, err := repredict(ctx, c)
		if err != nil {
			fail(err)
		}
		writeReport(c, rep)
		return
	}
	start := time.Now()
	rep, err := run(ctx, c)
	stopped := stopAll()
	cancel()
	if err != nil {
		fail(err, stopped...)
	}
	rep.Wall = time.Since(start) // the measurements' and the predictions'; -predict keeps the measuring run's
	rep.Stopped = stopped
	writeReport(c, rep)
}

// parseFlags reads the flags and checks them, and the outputs' paths, before anything
// starts: a bad one fails in a second, not after the run's minutes.
func parseFlags() config {
	var c config
	flag.BoolVar(&c.short, "short", false, "the short version CI runs: fewer grid points, shorter measurements, no repeats")
	flag.StringVar(&c.out, "o", "docs/validation.md", "the report to write")
	flag.StringVar(&c.shardsim, "shardsim", "bin/shardsim", "the shardsim binary that makes the predictions")
	flag.IntVar(&c.redisPort, "redis-port", 30001, "the first of four loopback ports: three for the Redis Cluster nodes (their cluster bus ports are 10000 above), the fourth for the Redis under a CPU quota")
	flag.IntVar(&c.pgPort, "pg-port", 55432, "PostgreSQL's port number (it listens on a Unix socket only; the number names the socket)")
	flag.Uint64Var(&c.seed, "seed", 1, "the seed of the load generators' random draws")
	flag.StringVar(&c.predict, "predict", "", "start no server: read the measurements of this data file (one a run wrote beside its report, as docs/validation-data.json), make every prediction again with -shardsim, and write the report and its data file (-o); experiment 2's prediction is kept, as it replays an access log the run does not keep")
	flag.BoolVar(&c.noRT, "no-rt", false, "run PostgreSQL, pgbench and redis-benchmark at normal priority, as where the kernel refuses real-time priority (the figures are marked)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: validate-real [flags]\n\nStarts PostgreSQL and a Redis Cluster in a temporary directory, measures them, runs shardsim's\npredictions and writes the comparison (docs/validation.md). Servers are stopped by pid at the end.\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected argument %q", flag.Arg(0)))
	}
	if c.redisPort < 1024 || c.redisPort+2+10000 > 65535 {
		fail(fmt.Errorf("-redis-port: %d must be between 1024 and %d (three ports and their bus ports 10000 above)", c.redisPort, 65535-10002))
	}
	if c.pgPort < 1 || c.pgPort > 65535 {
		fail(fmt.Errorf("-pg-port: %d is not a port number", c.pgPort))
	}
	if err := checkOut(c.out, "-o "+c.out); err != nil { // before the run, not after its minutes
		fail(err)
	}
	if err := checkOut(dataPath(c.out), fmt.Sprintf("-o %s: its data file %s", c.out, dataPath(c.out))); err != nil {
		fail(err)
	}
	if _, err := os.Stat(c.shardsim); err != nil {
		fail(fmt.Errorf("-shardsim: %v (build it with make build)", err))
	}
	if abs, err := filepath.Abs(c.shardsim); err == nil {
		c.shardsim = abs
	}
	return c
}

// writeReport writes the report and its data file, and says what it wrote and skipped.
func writeReport(c config, rep *report) {
	data, err := rep.data()
	if err != nil {
		fail(err)
	}
	if err := atomicfile.Write(dataPath(c.out), data); err != nil {
		fail(fmt.Errorf("-o %s: its data file: %v", c.out, err))
	}
	if err := atomicfile.Write(c.out, []byte(rep.markdown())); err != nil {
		fail(fmt.Errorf("-o %s: %v", c.out, err))
	}
	if c.predict != "" {
		fmt.Printf("validate-real: predicted again from the measurements of %s, started no server; wrote %s and %s (%d of %d checks within their targets)\n",
			c.predict, c.out, dataPath(c.out), rep.passed(), rep.checks())
		return
	}
	fmt.Printf("validate-real: wrote %s and %s in %.0f s (%d of %d checks within their targets); stopped %s\n",
		c.out, dataPath(c.out), rep.Wall.Seconds(), rep.passed(), rep.checks(), strings.Join(rep.Stopped, ", "))
	if !rep.RT.On {
		fmt.Printf("validate-real: note: %s\n", rep.RT.Note)
	}
	if rep.E7 != nil && rep.E7.Skipped != "" {
		fmt.Printf("validate-real: note: skipped experiment 7 (Redis under a CPU quota): %s\n", rep.E7.Skipped)
	}
}

// onSignal stops the servers, removes the temporary directory (PostgreSQL's data, tens of
// MB) and exits with status 2 on SIGINT, SIGTERM or SIGHUP.
func onSignal(cancel context.CancelFunc) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		cancel()
		fmt.Fprintf(os.Stderr, "validate-real: %v: stopping the servers\n", s)
		stopped := stopAll()
		removeCgroups()
		removeTemp()
		if len(stopped) > 0 {
			fmt.Fprintf(os.Stderr, "validate-real: stopped %s; nothing it started is left running\n", strings.Join(stopped, ", "))
		}
		os.Exit(2)
	}()
}

// tempDir is the temporary directory run made, removed by removeTemp ("" when none).
var tempDir struct {
	sync.Mutex
	path    string
	removed bool
}

// makeTemp makes the temporary directory, for removeTemp to remove however the command ends.
func makeTemp() (string, error) {
	tempDir.Lock()
	defer tempDir.Unlock()
	if tempDir.removed {
		return "", errors.New("stopping")
	}
	p, err := os.MkdirTemp("", "shardsim-validate-")
	tempDir.path = p
	return p, err
}

// removeTemp removes the temporary directory, once the servers that use it are stopped.
func removeTemp() {
	tempDir.Lock()
	defer tempDir.Unlock()
	if tempDir.path != "" {
		os.RemoveAll(tempDir.path)
	}
	tempDir.path, tempDir.removed = "", true
}

// checkOut checks, before anything starts, that the report (or its data file) can be
// written at path, named in errors as name: its
// directory exists and takes a new file (the report is written beside it, then renamed),
// and path is a regular file or absent, not a directory, a device or a FIFO.
func checkOut(path, name string) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		kind := "not a regular file"
		if st.IsDir() {
			kind = "a directory"
		}
		return fmt.Errorf("%s: is %s; give the path of a file to write", name, kind)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("%s: its directory %s: %v", name, dir, errors.Unwrap(err))
	case !st.IsDir():
		return fmt.Errorf("%s: %s is not a directory", name, dir)
	}
	f, err := os.CreateTemp(dir, ".validate-real-probe-*")
	if err != nil {
		return fmt.Errorf("%s: cannot write in %s: %v", name, dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

func fail(err error, stopped ...string) {
	fmt.Fprintf(os.Stderr, "validate-real: %v\n", err)
	if len(stopped) > 0 {
		fmt.Fprintf(os.Stderr, "validate-real: stopped %s; nothing it started is left running\n", strings.Join(stopped, ", "))
	}
	os.Exit(2)
}

// run does the three experiments; the caller stops the servers whatever it returns.
func run(ctx context.Context, c config) (*report, error) {
	t, err := findTools()
	if err != nil {
		return nil, err
	}
	ports := []int{c.redisPort, c.redisPort + 1, c.redisPort + 2}
	for _, p := range []int{ports[0], ports[1], ports[2], c.redisPort + 3} { // before anything starts, so that a busy port leaves nothing behind
		if err := portFree(p); err != nil {
			return nil, fmt.Errorf("Redis: %w", err)
		}
	}
	tmp, err := makeTemp()
	if err != nil {
		return nil, err
	}
	rep := &report{Out: c.out, Short: c.short, Machine: machine(t), Seed: c.seed, LoadBefore: loadAvg()}
	defer func() {
		stopAll() // the files go once nothing uses them
		rep.Cgroups = append(rep.Cgroups, removeCgroups()...)
		removeTemp()
	}()
	if err := os.Chmod(tmp, 0o755); err != nil { // PostgreSQL's account must reach its directory
		return nil, err
	}
	var chrt string
	rep.RT, chrt = probeRT()
	if c.noRT {
		rep.RT, chrt = rtState{Note: "-no-rt was given: the pgbench experiments ran at normal priority"}, ""
	}

	pg, err := postgresExperiments(ctx, c, t, tmp, chrt, rep)
	if err != nil {
		return nil, err
	}
	rc, err := startRedis(ctx, t, tmp, ports)
	if err != nil {
		return nil, err
	}
	defer rc.close()
	if err := experiment2(ctx, c, rc, tmp, rep); err != nil {
		return nil, err
	}
	if err := experiment3(ctx, c, rc, tmp, rep); err != nil {
		return nil, err
	}
	if err := experiment7(ctx, c, t, pg.chrt, tmp, rep); err != nil {
		return nil, err
	}
	if err := anyDead(); err != nil {
		return nil, err
	}
	rep.LoadAfter = loadAvg()
	return rep, rep.predict(ctx, c, tmp)
}

// repredict reads the measurements of c.predict and makes every prediction again.
func repredict(ctx context.Context, c config) (*report, error) {
	data, err := os.ReadFile(c.predict)
	if err != nil {
		return nil, fmt.Errorf("-predict: %v", err)
	}
	var rep report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("-predict %s: not a data file of validate-real: %v", c.predict, err)
	}
	if rep.E4 == nil && rep.E1 == nil && rep.E7 == nil {
		return nil, fmt.Errorf("-predict %s: holds no experiment's measurements", c.predict)
	}
	rep.Out = c.out
	rep.Repredicted = time.Now().UTC().Format("2006-01-02 15:04 UTC")
	tmp, err := makeTemp()
	if err != nil {
		return nil, err
	}
	defer removeTemp()
	return &rep, rep.predict(ctx, c, tmp)
}

// postgresExperiments starts PostgreSQL and runs its experiments: the counters through
// pgx (1), then, with the server at real-time priority where the kernel allows it
// (chrt), the hot-row grid (4), the open-loop tail (6) and the durable grid (5).
func postgresExperiments(ctx context.Context, c config, t tools, tmp, chrt string, rep *report) (*pgServer, error) {
	pg, err := startPostgres(ctx, t, tmp, c.pgPort)
	if err != nil {
		return nil, err
	}
	rep.PGUser = pg.user
	if err := experiment1(ctx, c, pg, tmp, rep); err != nil {
		return nil, err
	}
	if rep.RT.On {
		if err := setRT(chrt, pg.srv.cmd.Process.Pid); err != nil {
			rep.RT = rtState{Note: fmt.Sprintf("the kernel refused real-time priority for the server (%v): the pgbench experiments ran at normal priority", err)}
		} else {
			pg.chrt = chrt
		}
	}
	for _, exp := range []func(context.Context, config, *pgServer, string, *report) error{experiment4, experiment6, experiment5} {
		if err := exp(ctx, c, pg, tmp, rep); err != nil {
			return nil, err
		}
	}
	return pg, nil
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func machine(t tools) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := "unknown kernel"
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%s, %d cores (runtime.NumCPU), %s, %s; %s; %s", cpu, runtime.NumCPU(), kernel, runtime.Version(), t.pgVersion, t.redisVersion)
}
