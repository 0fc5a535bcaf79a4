package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgSettings are the server settings of the PostgreSQL experiment, as a lab run fixes
// them so that it measures the same thing on every machine: no disk flush at commit
// (fsync and synchronous_commit off, so the row lock is held for the CPU work of the
// update and its commit, not for a disk's flush, which varies with the disk and with the
// other programs writing to it), no autovacuum starting in the middle of a point (the
// table is vacuumed between points instead), no TCP (a Unix socket in the temporary
// directory). docs/validation.md prints them.
var pgSettings = []string{
	"listen_addresses=",
	"fsync=off",
	"synchronous_commit=off",
	"full_page_writes=off",
	"autovacuum=off",
	"max_connections=100",
	"shared_buffers=128MB",
}

// pgDurable are the settings of the durable grid (experiment 5): every commit waits for
// its WAL flush to the disk (wal_sync_method left at its default).
var pgDurable = []string{
	"listen_addresses=",
	"fsync=on",
	"synchronous_commit=on",
	"full_page_writes=on",
	"autovacuum=off",
	"max_connections=100",
	"shared_buffers=128MB",
}

// pgServer is a running PostgreSQL cluster in a temporary directory.
type pgServer struct {
	srv        *server
	sock       string
	port       int
	user       string // the OS account it runs as
	cred       *syscall.Credential
	dir, data  string
	postgres   string
	pgbenchBin string
	chrt       string // set when the server and pgbench run at real-time priority
}

// startPostgres makes a cluster with initdb and starts postgres on a Unix socket.
func startPostgres(ctx context.Context, t tools, tmp string, port int) (*pgServer, error) {
	cred, osUser, err := pgUser()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(tmp, "pg")
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	for _, d := range []string{dir, sock} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		chownFile(d, cred)
	}
	if _, err := runAs(ctx, cred, 2*time.Minute, t.initdb, "-D", data, "-U", "shardsim", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("PostgreSQL's initdb failed (as user %s): %w", osUser, err)
	}
	pg := &pgServer{sock: sock, port: port, user: osUser, cred: cred, dir: dir, data: data, postgres: t.postgres, pgbenchBin: t.pgbench}
	if err := pg.launch(ctx, pgSettings); err != nil {
		return nil, err
	}
	return pg, nil
}

// launch starts postgres on the cluster's data with the settings, and waits for it.
func (pg *pgServer) launch(ctx context.Context, settings []string) error {
	args := []string{"-D", pg.data, "-k", pg.sock, "-p", strconv.Itoa(pg.port)}
	for _, s := range settings {
		args = append(args, "-c", s)
	}
	srv, err := start("postgres", filepath.Join(pg.dir, "postgres.log"), syscall.SIGINT, pg.cred, pg.dir, pg.postgres, args...)
	if err != nil {
		return err
	}
	pg.srv = srv
	err = waitFor(srv, 30*time.Second, func() error {
		c, err := pg.connect(ctx)
		if err == nil {
			c.Close(ctx)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("PostgreSQL did not start: %w", err)
	}
	return nil
}

// restart stops the server (by its pid) and starts it again on the same data with other
// settings; at real-time priority again when it ran so.
func (pg *pgServer) restart(ctx context.Context, settings []string) error {
	if err := pg.srv.stopNow(); err != nil {
		return err
	}
	if err := pg.launch(ctx, settings); err != nil {
		return err
	}
	if pg.chrt != "" {
		if err := setRT(pg.chrt, pg.srv.cmd.Process.Pid); err != nil {
			return fmt.Errorf("PostgreSQL restarted, but %v", err)
		}
	}
	return nil
}

// vacuum vacuums the counters between points (autovacuum is off).
func (pg *pgServer) vacuum(ctx context.Context) error {
	c, err := pg.connect(ctx)
	if err != nil {
		return pg.failed("connect", err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "VACUUM counters"); err != nil {
		return pg.failed("VACUUM counters", err)
	}
	return nil
}

// setupHotRows gives the counters table the rows 1..n that the pgbench script draws from.
func (pg *pgServer) setupHotRows(ctx context.Context, n int) error {
	c, err := pg.connect(ctx)
	if err != nil {
		return pg.failed("connect", err)
	}
	defer c.Close(ctx)
	q := fmt.Sprintf("INSERT INTO counters SELECT g, 0 FROM generate_series(0, %d) g ON CONFLICT DO NOTHING", n)
	if _, err := c.Exec(ctx, q); err != nil {
		return pg.failed(q, err)
	}
	return nil
}

func (pg *pgServer) connect(ctx context.Context) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return pgx.Connect(cctx, fmt.Sprintf("host=%s port=%d user=shardsim dbname=postgres sslmode=disable", pg.sock, pg.port))
}

// counterPoint is one measurement: C closed-loop clients incrementing B counter rows.
type counterPoint struct {
	C, B       int
	Throughput float64 // updates a second
	MeanMs     float64
}

// measureCounters runs C clients for warm + d, each issuing UPDATE counters SET n = n + 1
// WHERE id = $1 on a row drawn uniformly from B rows and waiting for its answer before
// the next; the updates that end inside the d after warm count.
func (pg *pgServer) measureCounters(ctx context.Context, C, B int, warm, d time.Duration, seed uint64) (counterPoint, error) {
	admin, err := pg.connect(ctx)
	if err != nil {
		return counterPoint{}, pg.failed("connect", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "VACUUM counters"); err != nil {
		return counterPoint{}, pg.failed("VACUUM counters", err)
	}
	conns, err := pg.connectClients(ctx, C)
	defer closeConns(conns)
	if err != nil {
		return counterPoint{}, err
	}
	tallies := updateCounters(ctx, conns, B, warm, d, seed)
	p := counterPoint{C: C, B: B}
	var n int64
	var sum time.Duration
	for _, tl := range tallies {
		if tl.err != nil {
			return p, pg.failed("UPDATE counters", tl.err)
		}
		n += tl.n
		sum += tl.sum
	}
	if n == 0 {
		return p, fmt.Errorf("PostgreSQL: no update completed in %s with %d clients", d, C)
	}
	p.Throughput = float64(n) / d.Seconds()
	p.MeanMs = float64(sum.Microseconds()) / 1000 / float64(n)
	return p, nil
}

// connectClients opens C connections, each with the update prepared once, so that each
// update is one Bind/Execute round trip. On an error it returns the connections opened so
// far with it, for the caller to close (closeConns).
func (pg *pgServer) connectClients(ctx context.Context, C int) ([]*pgx.Conn, error) {
	conns := make([]*pgx.Conn, C)
	for i := range conns {
		var err error
		if conns[i], err = pg.connect(ctx); err != nil {
			return conns, pg.failed("connect", err)
		}
		if _, err := conns[i].Prepare(ctx, "inc", "UPDATE counters SET n = n + 1 WHERE id = $1"); err != nil {
			return conns, pg.failed("PREPARE", err)
		}
	}
	return conns, nil
}

// closeConns closes the connections that were opened.
func closeConns(conns []*pgx.Conn) {
	for _, c := range conns {
		if c != nil {
			c.Close(context.Background())
		}
	}
}

// counterTally is one client's updates that ended in the measured span, their summed
// latency, and the error that stopped it.
type counterTally struct {
	n   int64
	sum time.Duration
	err error
}

// updateCounters runs a client on each connection for warm + d, each updating a row
// drawn uniformly from B rows and waiting for its answer before the next, and returns
// each client's tally of the updates that ended inside the d after warm.
func updateCounters(ctx context.Context, conns []*pgx.Conn, B int, warm, d time.Duration, seed uint64) []counterTally {
	tallies := make([]counterTally, len(conns))
	start := time.Now()
	from, to := start.Add(warm), start.Add(warm+d)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(i)))
			c, tl := conns[i], &tallies[i]
			for {
				t0 := time.Now()
				if t0.After(to) {
					return
				}
				if _, err := c.Exec(ctx, "inc", r.IntN(B)); err != nil {
					tl.err = err
					return
				}
				t1 := time.Now()
				if t1.After(from) && !t1.After(to) {
					tl.n++
					tl.sum += t1.Sub(t0)
				}
			}
		}(i)
	}
	wg.Wait()
	return tallies
}

// failed names the server's death when it explains a client's error.
func (pg *pgServer) failed(what string, err error) error {
	time.Sleep(200 * time.Millisecond) // let the watcher see an exit
	if dead := pg.srv.alive(); dead != nil {
		return fmt.Errorf("PostgreSQL failed during %s: %w", what, dead)
	}
	return fmt.Errorf("PostgreSQL: %s: %w", what, err)
}

// setupCounters makes the table of the experiment with 8 rows.
func (pg *pgServer) setupCounters(ctx context.Context) error {
	c, err := pg.connect(ctx)
	if err != nil {
		return pg.failed("connect", err)
	}
	defer c.Close(ctx)
	for _, q := range []string{
		"CREATE TABLE counters (id int PRIMARY KEY, n bigint NOT NULL)",
		"INSERT INTO counters SELECT g, 0 FROM generate_series(0, 7) g",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			return pg.failed(q, err)
		}
	}
	return nil
}
