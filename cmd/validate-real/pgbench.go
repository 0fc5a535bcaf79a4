package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The pgbench experiments (4 to 6) drive PostgreSQL with pgbench itself, one thread, over
// the server's Unix socket, with the server and pgbench at real-time priority where the
// kernel allows it: on a machine whose other programs keep its cores busy, a backend that
// holds the hot row's lock would otherwise wait for a core while every waiter waits for it.
// docs/validation.md says, beside each figure, whether they ran so.

// hotRowScript is the transaction of experiments 4 to 6: a row held across a 2 ms wait
// that is not CPU (an application's round trip while it holds the row).
const hotRowScript = `\set id random(1, :B)
BEGIN;
UPDATE counters SET n = n + 1 WHERE id = :id;
SELECT pg_sleep(0.002);
COMMIT;
`

// roundTripScript measures one round trip of the connection: the cost of the model.
const roundTripScript = "SELECT 1;\n"

// rtPriority is the SCHED_FIFO priority of the server and pgbench.
const rtPriority = 20

// rtState says whether real-time priority is in use, and when not, why.
type rtState struct {
	On   bool
	Note string `json:",omitempty"`
}

// probeRT checks that chrt can run a program at SCHED_FIFO rtPriority here.
func probeRT() (rtState, string) {
	chrt, err := exec.LookPath("chrt")
	if err != nil {
		return rtState{Note: "chrt is not installed (util-linux): the pgbench experiments ran at normal priority"}, ""
	}
	out, err := exec.Command(chrt, "-f", strconv.Itoa(rtPriority), "true").CombinedOutput()
	if err != nil {
		return rtState{Note: fmt.Sprintf("the kernel refused real-time priority (chrt -f %d true: %v %s): the pgbench experiments ran at normal priority", rtPriority, err, strings.TrimSpace(string(out)))}, ""
	}
	return rtState{On: true}, chrt
}

// setRT puts the process pid and its children at SCHED_FIFO rtPriority (children forked
// later, PostgreSQL's backends, inherit it).
func setRT(chrt string, pid int) error {
	pids := append([]int{pid}, childrenOf(pid)...)
	for i, p := range pids {
		if out, err := exec.Command(chrt, "-f", "-p", strconv.Itoa(rtPriority), strconv.Itoa(p)).CombinedOutput(); err != nil {
			if _, gone := os.Stat(fmt.Sprintf("/proc/%d", p)); i > 0 && gone != nil {
				continue // a child that ended meanwhile (a backend whose client left)
			}
			return fmt.Errorf("chrt -f -p %d %d: %v %s", rtPriority, p, err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if f := statFields(string(b)); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// statFields are the fields of /proc/PID/stat after the command name, from the state
// (field 3 of proc(5)) on.
func statFields(stat string) []string {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(stat[i+1:])
}

// schedOf is the scheduling policy and real-time priority of pid, from /proc/PID/stat
// (fields 40 and 41 of proc(5)): "SCHED_FIFO 20", "SCHED_OTHER".
func schedOf(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "unknown"
	}
	return schedString(string(b))
}

func schedString(stat string) string {
	f := statFields(stat)
	if len(f) < 39 {
		return "unknown"
	}
	prio, policy := f[40-3], f[41-3]
	switch policy {
	case "0":
		return "SCHED_OTHER"
	case "1":
		return "SCHED_FIFO " + prio
	case "2":
		return "SCHED_RR " + prio
	case "3":
		return "SCHED_BATCH"
	case "5":
		return "SCHED_IDLE"
	}
	return "policy " + policy
}

// pgbenchRun is one pgbench invocation.
type pgbenchRun struct {
	Script  string  // the script's text
	C, B    int     // clients; rows (the script's :B)
	Rate    float64 // offered transactions a second (-R), 0 for a closed loop
	Seconds int     // -T
	Warm    float64 // seconds at the start left out of the figures
}

// benchPoint is one measured point of a pgbench experiment: its raw figures, kept in the
// data file beside docs/validation.md.
type benchPoint struct {
	C, B       int
	Rate       float64 `json:",omitempty"`
	Seconds    int
	Warm       float64 // seconds left out at the start
	Throughput float64 // transactions a second that ended in the measured span (the log's)
	MeanMs     float64 // their mean latency (from the scheduled start under -R)
	Count      int     // transactions that ended in the measured span
	// pgbench's own summary, over the whole run (warm-up included)
	PgbenchTPS    float64
	PgbenchMeanMs float64
	P10Ms         float64
	P50Ms         float64
	P90Ms         float64
	P99Ms         float64
	LoadBefore    string
	LoadAfter     string
	ServerRT      string // the postmaster's scheduling policy during the point
	ClientRT      string // pgbench's ("chrt -f 20" or "normal")
	Note          string `json:",omitempty"` // set when no transaction completed
}

// pgbench runs r against the server with its latency log in dir, and reads its summary
// and its log.
func (pg *pgServer) pgbench(ctx context.Context, r pgbenchRun, dir, name string) (benchPoint, error) {
	pt := benchPoint{C: r.C, B: r.B, Rate: r.Rate, Seconds: r.Seconds, Warm: r.Warm, ClientRT: "normal"}
	if err := pg.vacuum(ctx); err != nil {
		return pt, err
	}
	script := filepath.Join(dir, name+".sql")
	if err := os.WriteFile(script, []byte(r.Script), 0o644); err != nil {
		return pt, err
	}
	prefix := filepath.Join(dir, name+"-log")
	args := []string{"-n", "-f", script, "-c", strconv.Itoa(r.C), "-j", "1", "-T", strconv.Itoa(r.Seconds), "-M", "prepared",
		"-D", "B=" + strconv.Itoa(max(r.B, 1)), "-h", pg.sock, "-p", strconv.Itoa(pg.port), "-U", "shardsim",
		"-l", "--log-prefix=" + prefix}
	if r.Rate > 0 {
		args = append(args, "-R", strconv.FormatFloat(r.Rate, 'f', 1, 64))
	}
	args = append(args, "postgres")
	bin := pg.pgbenchBin
	if pg.chrt != "" {
		args = append([]string{"-f", strconv.Itoa(rtPriority), bin}, args...)
		bin = pg.chrt
		pt.ClientRT = fmt.Sprintf("chrt -f %d", rtPriority)
	}
	pt.LoadBefore = loadAvg()
	pt.ServerRT = schedOf(pg.srv.cmd.Process.Pid)
	cctx, cancel := context.WithTimeout(ctx, time.Duration(r.Seconds+60)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, args...)
	out, err := cmd.CombinedOutput()
	pt.LoadAfter = loadAvg()
	if err != nil {
		return pt, pg.failed("pgbench", fmt.Errorf("%v\n%s", err, tailText(string(out), 6)))
	}
	sum, err := parsePgbench(string(out))
	if errors.Is(err, errNoneCompleted) {
		pt.Note = fmt.Sprintf("no transaction completed in the %d s run", r.Seconds)
		return pt, nil
	}
	if err != nil {
		return pt, fmt.Errorf("pgbench's output: %v\n%s", err, tailText(string(out), 6))
	}
	pt.PgbenchTPS, pt.PgbenchMeanMs = sum.TPS, sum.MeanMs
	logs, _ := filepath.Glob(prefix + ".*")
	var txns []logTxn
	for _, l := range logs {
		xs, err := readPgbenchLog(l)
		if err != nil {
			return pt, err
		}
		txns = append(txns, xs...)
	}
	if len(txns) == 0 {
		return pt, fmt.Errorf("pgbench wrote no latency log (%s.*)", prefix)
	}
	lf, err := figuresOf(txns, r.Warm, float64(r.Seconds))
	if errors.Is(err, errNoneCompleted) {
		pt.Note = fmt.Sprintf("no transaction completed in the last %g s of the run", float64(r.Seconds)-r.Warm)
		return pt, nil
	}
	if err != nil {
		return pt, fmt.Errorf("pgbench log %s.*: %v", prefix, err)
	}
	pt.Count, pt.Throughput, pt.MeanMs = lf.Count, lf.Throughput, lf.MeanMs
	pt.P10Ms, pt.P50Ms, pt.P90Ms, pt.P99Ms = lf.P10, lf.P50, lf.P90, lf.P99
	return pt, nil
}

func tailText(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

// pgbenchSummary is what pgbench prints at its end.
type pgbenchSummary struct {
	Processed int64
	MeanMs    float64
	TPS       float64
}

// errNoneCompleted is a run in which no transaction completed (at normal priority on a busy
// machine, 32 clients on one row can do none in a short run): the point is kept, marked.
var errNoneCompleted = errors.New("no transaction completed")

// parsePgbench reads pgbench's closing summary: "number of transactions actually
// processed: N", "latency average = X ms", "tps = Y (...)".
func parsePgbench(out string) (pgbenchSummary, error) {
	var s pgbenchSummary
	var seen [3]bool
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "number of transactions actually processed:"):
			v := strings.TrimSpace(strings.TrimPrefix(line, "number of transactions actually processed:"))
			v, _, _ = strings.Cut(v, "/")
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return s, fmt.Errorf("%q: %v", line, err)
			}
			s.Processed, seen[0] = n, true
		case strings.HasPrefix(line, "latency average ="):
			v := strings.TrimSpace(strings.TrimPrefix(line, "latency average ="))
			v, ok := strings.CutSuffix(v, " ms")
			f, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil {
				return s, fmt.Errorf("%q: not a latency in ms", line)
			}
			s.MeanMs, seen[1] = f, true
		case strings.HasPrefix(line, "tps ="):
			v := strings.Fields(strings.TrimPrefix(line, "tps ="))
			if len(v) == 0 {
				return s, fmt.Errorf("%q: no figure", line)
			}
			f, err := strconv.ParseFloat(v[0], 64)
			if err != nil {
				return s, fmt.Errorf("%q: %v", line, err)
			}
			s.TPS, seen[2] = f, true
		}
	}
	if seen[0] && s.Processed == 0 { // pgbench prints no latency then
		return s, errNoneCompleted
	}
	for i, what := range []string{"the transactions processed", "the latency average", "the tps"} {
		if !seen[i] {
			return s, fmt.Errorf("no line with %s", what)
		}
	}
	return s, nil
}

// logTxn is one transaction of a pgbench log: when it ended (s since the epoch) and its
// latency (ms).
type logTxn struct {
	EndS, LatMs float64
}

// readPgbenchLog reads a pgbench per-transaction log (-l): lines of "client_id
// transaction_no time script_no time_epoch time_us [schedule_lag]", the third field the
// transaction's latency in microseconds (from its scheduled start under -R), the fifth and
// sixth when it ended; "skipped" and "failed" transactions are left out.
func readPgbenchLog(path string) ([]logTxn, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	xs, err := parsePgbenchLog(f)
	if err != nil {
		return nil, fmt.Errorf("pgbench log %s: %v", path, err)
	}
	return xs, nil
}

func parsePgbenchLog(r io.Reader) ([]logTxn, error) {
	var out []logTxn
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 6 {
			return nil, fmt.Errorf("line %d: %d fields, want at least 6", n, len(f))
		}
		if f[2] == "skipped" || f[2] == "failed" {
			continue
		}
		var v [3]int64
		for i, k := range []int{2, 4, 5} {
			x, err := strconv.ParseInt(f[k], 10, 64)
			if err != nil || x < 0 {
				return nil, fmt.Errorf("line %d: field %d (%q) is not a count", n, k+1, f[k])
			}
			v[i] = x
		}
		out = append(out, logTxn{LatMs: float64(v[0]) / 1000, EndS: float64(v[1]) + float64(v[2])/1e6})
	}
	return out, sc.Err()
}

// logFigures are the figures of a pgbench log over its measured span: the transactions
// that ended in the last span - warm seconds of the run, which ends with its last
// transaction. (Not counted from the first transaction's start: under -R pgbench's
// schedule starts before its clients have connected, which under load takes a second.)
type logFigures struct {
	Count              int
	Throughput, MeanMs float64
	P10, P50, P90, P99 float64
	FromS, ToS         float64 // the window, in seconds since the epoch
}

func figuresOf(txns []logTxn, warm, span float64) (logFigures, error) {
	var lf logFigures
	if len(txns) == 0 {
		return lf, fmt.Errorf("no transaction in the log")
	}
	if span <= warm {
		return lf, fmt.Errorf("a run of %g s with %g s left out measures nothing", span, warm)
	}
	to := math.Inf(-1)
	for _, t := range txns {
		to = max(to, t.EndS)
	}
	from := to - (span - warm)
	var lat []float64
	sum := 0.0
	for _, t := range txns {
		if t.EndS >= from && t.EndS <= to {
			lat = append(lat, t.LatMs)
			sum += t.LatMs
		}
	}
	if len(lat) == 0 {
		return lf, errNoneCompleted
	}
	slices.Sort(lat)
	lf = logFigures{Count: len(lat), Throughput: float64(len(lat)) / (span - warm), MeanMs: sum / float64(len(lat)),
		P10: quantile(lat, 0.10), P50: quantile(lat, 0.50), P90: quantile(lat, 0.90), P99: quantile(lat, 0.99), FromS: from, ToS: to}
	return lf, nil
}

// quantile is the q-quantile of sorted xs (nearest rank).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// calibration is a pgbench experiment's model inputs: the round trip (cost) and the hold
// of the row (lock) = one client's latency on one row less the BEGIN's round trip.
type calibration struct {
	RoundTripMs float64 // one client's SELECT 1 latency
	OneClientMs float64 // one client's latency on one row
	CostUs      float64
	LockUs      float64
	Clamped     bool // the one-client latency was not above the round trip: lock set to 1 us
	// The mechanisms the model turns on ("", 0: off): the row's grant order (lock_grant),
	// the cost of each waiter woken at a release (lock_wake_cost) and the point it was
	// calibrated from, and the node's commit flush (commit_flush).
	Grant    string  `json:",omitempty"`
	WakeUs   float64 `json:",omitempty"`
	WakeFrom string  `json:",omitempty"`
	FlushUs  float64 `json:",omitempty"`
	// Release is when the row's lock is let go (lock_release): "" after the hold, before
	// the write's service; "commit" once the write has committed, its flush included, as
	// PostgreSQL does (the durable grid).
	Release string `json:",omitempty"`
}

func calibrate(roundTripMs, oneClientMs float64) calibration {
	c := calibration{RoundTripMs: roundTripMs, OneClientMs: oneClientMs, CostUs: roundTripMs * 1000, LockUs: (oneClientMs - roundTripMs) * 1000}
	if c.LockUs < 1 {
		c.LockUs, c.Clamped = 1, true
	}
	return c
}

// within says whether measured/predicted is within frac of 1, and the ratio.
func within(measured, predicted, frac float64) (float64, bool) {
	if predicted <= 0 {
		return 0, false
	}
	r := measured / predicted
	return r, math.Abs(r-1) <= frac
}
