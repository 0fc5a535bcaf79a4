// Command validate-real checks shardsim against real databases: it starts PostgreSQL and a
// three-node Redis Cluster from the machine's packages in a temporary directory, drives
// them with real clients (jackc/pgx, redis/go-redis), runs the matching shardsim
// scenarios and writes docs/validation.md with the measured and predicted figures side
// by side. Every server it starts is stopped by its pid before it exits. See
// docs/validation.md for what each experiment does and why.
//
// Exit status: 0 when every experiment ran (whether or not the figures agree: the file
// says which do), 2 when a server could not start or failed, or the input was bad.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
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
}

func main() {
	var c config
	flag.BoolVar(&c.short, "short", false, "the short version CI runs: fewer grid points, shorter measurements, no repeats")
	flag.StringVar(&c.out, "o", "docs/validation.md", "the report to write")
	flag.StringVar(&c.shardsim, "shardsim", "bin/shardsim", "the shardsim binary that makes the predictions")
	flag.IntVar(&c.redisPort, "redis-port", 30001, "the first of three loopback ports for the Redis nodes (their cluster bus ports are 10000 above)")
	flag.IntVar(&c.pgPort, "pg-port", 55432, "PostgreSQL's port number (it listens on a Unix socket only; the number names the socket)")
	flag.Uint64Var(&c.seed, "seed", 1, "the seed of the load generators' random draws")
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
	if _, err := os.Stat(c.shardsim); err != nil {
		fail(fmt.Errorf("-shardsim: %v (build it with make build)", err))
	}
	if abs, err := filepath.Abs(c.shardsim); err == nil {
		c.shardsim = abs
	}

	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		cancel()
		fmt.Fprintf(os.Stderr, "validate-real: %v: stopping the servers\n", s)
		stopAll()
		os.Exit(2)
	}()
	start := time.Now()
	rep, err := run(ctx, c)
	stopped := stopAll()
	cancel()
	if err != nil {
		fail(err, stopped...)
	}
	rep.Wall = time.Since(start)
	rep.Stopped = stopped
	if err := atomicfile.Write(c.out, []byte(rep.markdown())); err != nil {
		fail(fmt.Errorf("-o %s: %v", c.out, err))
	}
	fmt.Printf("validate-real: wrote %s in %.0f s (%d of %d checks within their targets); stopped %s\n",
		c.out, rep.Wall.Seconds(), rep.passed(), rep.checks(), strings.Join(stopped, ", "))
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
	for _, p := range ports { // before anything starts, so that a busy port leaves nothing behind
		if err := portFree(p); err != nil {
			return nil, fmt.Errorf("Redis: %w", err)
		}
	}
	tmp, err := os.MkdirTemp("", "shardsim-validate-")
	if err != nil {
		return nil, err
	}
	defer func() {
		stopAll() // the files go once nothing uses them
		os.RemoveAll(tmp)
	}()
	if err := os.Chmod(tmp, 0o755); err != nil { // PostgreSQL's account must reach its directory
		return nil, err
	}
	rep := &report{Short: c.short, Machine: machine(t), Seed: c.seed, LoadBefore: loadAvg()}

	pg, err := startPostgres(ctx, t, tmp, c.pgPort)
	if err != nil {
		return nil, err
	}
	rep.PGUser = pg.user
	if err := experiment1(ctx, c, pg, tmp, rep); err != nil {
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
	if err := anyDead(); err != nil {
		return nil, err
	}
	rep.LoadAfter = loadAvg()
	return rep, nil
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
