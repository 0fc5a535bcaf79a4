package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/internal/escape"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/plots"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/trace"
	"github.com/shardsim/shardsim/units"
)

// traceFlags are the flags that say how to read a log (analyze and fit).
type traceFlags struct {
	format    string // --log-format, or "" for csv (or the scenario's)
	oldFormat string // a log's format given as --format, the flag's old name (see legacy)
	delimiter string
	names     []string
	maxBad    string

	// The located log (see open).
	fsys  fs.FS
	path  string
	label string
	opt   trace.Options
}

func (t *traceFlags) register(fs *pflag.FlagSet) {
	textVar(fs, &t.format, "log-format", "", "format", "the log's format: "+strings.Join(trace.Formats(), ", "))
	showDefault(fs, "log-format", "csv, or the format of the scenario's log")
	fs.StringVar(&t.delimiter, "delimiter", "", "split keys into parts on this character (with --names)")
	fs.StringSliceVar(&t.names, "names", nil, "names of the key's parts, in order (with --delimiter)")
	fs.StringVar(&t.maxBad, "max-bad", "0.1%", "malformed lines tolerated, a share of the lines (\"0.1%\" or 0.001)")
}

// legacy reads a value of --format that names a log's format (csv, twitter, kvcache) as
// --log-format, the name that flag had before --format came to mean the output's format on
// analyze as on the other commands; a note on stderr says so. The two sets of names do not
// meet, so such a value is never an output format. It returns the values left: the output
// formats.
func (t *traceFlags) legacy(values []string, stderr io.Writer) []string {
	var out []string
	for _, v := range values {
		if _, err := trace.ParseFormat(v); err == nil {
			fmt.Fprintf(stderr, "note: --format %s is read as --log-format %s: the log's format has a flag of its own now, and --format on analyze is what goes to stdout\n", v, v)
			t.oldFormat = v
			continue
		}
		out = append(out, v)
	}
	return out
}

// open opens the log named by args (one operand): a log file, or a scenario (a .toml
// file or a built-in name) whose first trace stream names the log, its format and its
// key fields (flags given on the command line win). It returns the reader and the name of
// the log for messages; t remembers how to open it again.
func (t *traceFlags) open(cmd string, args []string, fs *pflag.FlagSet) (*trace.Reader, io.Closer, string, error) {
	if len(args) != 1 {
		return nil, nil, "", argsError(cmd, "%s takes one TRACE file (got %d operands)", cmd, len(args))
	}
	if t.fsys == nil {
		if err := t.locate(args[0], fs); err != nil {
			return nil, nil, "", err
		}
	}
	return t.reopen()
}

// locate finds the log and how to read it: a log file itself, or the log of a scenario's
// first trace stream.
func (t *traceFlags) locate(ref string, fs *pflag.FlagSet) error {
	if err := t.options(); err != nil {
		return err
	}
	st, statErr := os.Stat(ref)
	if statErr == nil && !st.IsDir() && !strings.HasSuffix(ref, ".toml") {
		t.fsys, t.path, t.label = os.DirFS(filepath.Dir(ref)), filepath.Base(ref), ref
		return nil
	}
	if statErr != nil && strings.ContainsAny(ref, "/\\.") && !strings.HasSuffix(ref, ".toml") {
		return usagef("%s: %v", ref, unwrapPath(statErr))
	}
	return t.fromScenario(ref, fs)
}

// options reads the flags that say how to read a log into t.opt.
func (t *traceFlags) options() error {
	maxBad, err := parseShare(t.maxBad)
	if err != nil {
		return usagef("--max-bad: %v", err)
	}
	name := cmp.Or(t.format, t.oldFormat, "csv")
	f, err := trace.ParseFormat(name)
	if err != nil {
		return usagef("--log-format: %v", err)
	}
	if (t.delimiter == "") != (len(t.names) == 0) {
		return usagef("--delimiter and --names go together (got delimiter %q, %d names)", t.delimiter, len(t.names))
	}
	t.opt = trace.Options{Format: f, Delimiter: t.delimiter, Names: t.names, MaxBad: maxBad, MaxExpanded: trace.MaxVisitedOps}
	return nil
}

// fromScenario locates the log of the first trace stream of scenario ref (a .toml file or
// a built-in name), with its format and key parts unless the flags give them.
func (t *traceFlags) fromScenario(ref string, fs *pflag.FlagSet) error {
	sc, err := scenarios.Load(ref, scenarios.Options{})
	if err != nil {
		return usageError{err}
	}
	for _, ss := range sc.Variants[0].Spec.Streams {
		ts := ss.Trace
		if ts == nil {
			continue
		}
		opt := ts.Options()
		if t.format == "" && t.oldFormat == "" {
			t.opt.Format = opt.Format
		}
		if !fs.Changed("delimiter") {
			t.opt.Delimiter, t.opt.Names = opt.Delimiter, opt.Names
		}
		t.fsys, t.path, t.label = ts.FS, ts.Path, ts.Path
		return nil
	}
	return usagef("%s: the scenario replays no log (no stream has a trace)", ref)
}

// reopen opens the located log from its start.
func (t *traceFlags) reopen() (*trace.Reader, io.Closer, string, error) {
	rc, err := trace.Open(t.fsys, t.path)
	if err != nil {
		return nil, nil, "", usagef("%s: %v", t.label, unwrapPath(err))
	}
	rd, err := trace.NewReader(rc, t.opt)
	if err != nil {
		rc.Close()
		return nil, nil, "", usagef("%s: %v", t.label, err)
	}
	return rd, rc, t.label, nil
}

// unwrapPath drops the path an fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// traceError is a problem reading the log: malformed lines past --max-bad are the
// user's (exit 2), anything else an I/O failure.
func traceError(path string, err error) error {
	var be *trace.BadError
	var oe *trace.OpsError
	var ce *trace.CorruptError
	if errors.As(err, &be) || errors.As(err, &oe) || errors.As(err, &ce) {
		return usagef("%s: %v", path, err)
	}
	return fmt.Errorf("%s: %v", path, err)
}

// parseShare reads "0.1%" or "0.001".
func parseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a share such as 0.1%% or 0.001 (got %q)", s)
	}
	if pct {
		v /= 100
	}
	if v > 1 {
		return 0, fmt.Errorf("a share is at most 100%% (got %q)", s)
	}
	if v == 0 {
		v = 1e-300 // none tolerated (0 would mean the default)
	}
	return v, nil
}

// splitTop splits a comma-separated list at the commas outside parentheses, so that
// --key 'ns,hash(id, 16)' is two parts.
func splitTop(list []string) []string {
	var out []string
	for _, s := range list {
		depth, start := 0, 0
		for i, c := range s {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			case ',':
				if depth == 0 {
					out = append(out, strings.TrimSpace(s[start:i]))
					start = i + 1
				}
			}
		}
		out = append(out, strings.TrimSpace(s[start:]))
	}
	return out
}

// analyzeCmd is analyze's flags and its run.
type analyzeCmd struct {
	fs                  *pflag.FlagSet
	tf                  traceFlags
	keys                []string
	scheme, chart       string
	shards, salt, top   int
	saltMode, saltField string
	formats             []string // --format's values, a log's format among them (legacy)
}

// setupAnalyze registers analyze's flags on flags and returns the command's run.
func setupAnalyze(flags *pflag.FlagSet) func(stdout, stderr io.Writer) error {
	c := &analyzeCmd{fs: flags}
	c.register()
	return c.run
}

// register defines analyze's flags, the log's (traceFlags) among them.
func (c *analyzeCmd) register() {
	fs := c.fs
	c.tf.register(fs)
	fs.StringArrayVar(&c.keys, "key", nil, "a candidate partition key: parts named by --names (or key), hour(ts), hash(id, N)... comma-separated or repeated")
	fs.StringVar(&c.scheme, "scheme", "hash", "the candidate's shard scheme: "+orList(keyspace.FlagSchemes()))
	fs.IntVar(&c.shards, "shards", 16, "the candidate's shards")
	fs.IntVar(&c.salt, "salt", 0, "the candidate's salt buckets")
	fs.StringVar(&c.saltMode, "salt-mode", "random", "how a write picks its salt bucket: random, round_robin, or hash (of --salt-field: reads of a key then visit one bucket)")
	fs.StringVar(&c.saltField, "salt-field", "", "the key part a hash salt is taken from (with --salt-mode hash)")
	fs.IntVar(&c.top, "top", 10, "keys listed")
	// --format (-f) is what goes to stdout, as on the other commands; --output-format, its
	// name before, still works. A log's format given as --format is read as --log-format.
	fs.VarP(listValue{&c.formats, "string"}, "format", "f", "what goes to stdout: text, markdown or json (a log's format here, as in --format twitter, is read as --log-format, with a note: it was that flag's name)")
	showDefault(fs, "format", "text")
	fs.Var(listValue{&c.formats, "string"}, "output-format", "--format's old name on analyze")
	_ = fs.MarkHidden("output-format")
	textVar(fs, &c.chart, "chart", "", "file", "write a chart of the rate over time (.png or .svg)")
}

// run analyzes the log and prints the analysis (and draws its chart).
func (c *analyzeCmd) run(stdout, stderr io.Writer) error {
	out, err := c.output(stderr)
	if err != nil {
		return err
	}
	if err := c.checkDesignFlags(); err != nil {
		return err
	}
	rd, rc, path, err := c.tf.open("analyze", c.fs.Args(), c.fs)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := c.checkChart(path); err != nil {
		return err
	}
	cfg := trace.Config{Top: c.top}
	if len(c.keys) > 0 {
		d, err := analyzeDesign(&c.tf, rd, splitTop(c.keys), c.scheme, c.shards, c.salt, c.saltMode, c.saltField)
		if err != nil {
			return err
		}
		cfg.Design = d
	}
	a, err := trace.Analyze(rd, cfg)
	if err != nil {
		return traceError(path, err)
	}
	if c.chart != "" {
		if err := writeRateChart(c.chart, path, a); err != nil {
			return err
		}
	}
	if out == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(a)
	}
	writeAnalysis(stdout, path, a, out == "markdown")
	return nil
}

// output is what goes to stdout: text, markdown or json, the last --format given (a log's
// format given as --format is the log's, with a note).
func (c *analyzeCmd) output(stderr io.Writer) (string, error) {
	out := "text"
	if f := c.tf.legacy(c.formats, stderr); len(f) > 0 {
		out = f[len(f)-1]
	}
	if out != "text" && out != "markdown" && out != "json" {
		return "", usagef("--format: want text, markdown or json for what goes to stdout, or --log-format %s for the log's format (got %q)", strings.Join(trace.Formats(), ", "), out)
	}
	return out, nil
}

// checkDesignFlags refuses the flags of a candidate design without its key.
func (c *analyzeCmd) checkDesignFlags() error {
	if len(c.keys) > 0 {
		return nil
	}
	for _, f := range []string{"scheme", "shards", "salt", "salt-mode", "salt-field"} {
		if c.fs.Changed(f) {
			return usagef("--%s describes a candidate design, which needs --key (its partition key's parts, e.g. --key id)", f)
		}
	}
	return nil
}

// checkChart checks --chart's file before the log at path is read, which can take
// minutes.
func (c *analyzeCmd) checkChart(path string) error {
	if c.chart == "" {
		return nil
	}
	if ext := strings.ToLower(filepath.Ext(c.chart)); ext != ".png" && ext != ".svg" {
		return usagef("--chart %s: want a file ending in .png or .svg", c.chart)
	}
	return checkOutFile("--chart", c.chart, path)
}

// analyzeDesign checks the candidate design as a scenario would be checked and builds its
// planners; a range scheme's splits come from a first pass over the log.
func analyzeDesign(tf *traceFlags, rd *trace.Reader, key []string, scheme string, shards, salt int, saltMode, saltField string) (*trace.Design, error) {
	// The scheme's own properties say what flags cannot give: a scheme whose options no
	// flag holds, and a salt under a scheme that routes a key by its text's slot.
	k, ok := keyspace.ParseScheme(scheme)
	flagged := keyspace.FlagSchemes()
	switch {
	case !ok:
		return nil, usagef("--scheme: must be one of %s (got %q)", quotedList(flagged), scheme)
	case k.NoFlags() != "":
		return nil, usagef("--scheme %s: %s: replay the log in a scenario (a stream with trace = { file = ... }, docs/traces.md), or use --scheme %s", scheme, k.NoFlags(), orList(flagged))
	case k.Slots() && keyspace.Salted(salt):
		// As a replay of the log refuses it (the scheme's check of keyspace.salt): the
		// figures would be of the key without its salt.
		return nil, usagef("--salt %d: not with --scheme %s: the log's key text decides its slot, a salt bucket cannot be added to it (a replay of the log refuses it too)", salt, scheme)
	}
	f := compile.AnalysisFile(rd.Names(), key, scheme, shards, salt)
	f.Keyspace.SaltMode, f.Keyspace.SaltField = scenario.SaltMode(saltMode), saltField
	s, probs := scenario.Resolve(&f)
	if len(probs) > 0 {
		flag := map[string]string{"keyspace.scheme": "--scheme", "keyspace.shards": "--shards", "keyspace.salt": "--salt",
			"keyspace.salt_mode": "--salt-mode", "keyspace.salt_field": "--salt-field"}
		var msgs []string
		for _, p := range probs {
			name := "--key"
			if fl, ok := flag[p.Key]; ok {
				name = fl
			}
			msg := p.Msg
			if field, have, ok := noSuchField(p); ok {
				// There is no table here: the fields are the log's key parts.
				msg = fmt.Sprintf("no such part %q among the log's key parts (have %s; ts is the record's time)", field, have)
				msg += splitHint(tf, rd.Names())
			}
			msgs = append(msgs, name+": "+msg)
		}
		return nil, usagef("%s", strings.Join(msgs, "\n"))
	}
	d := compile.TraceDesign(s, rd.Names(), nil, nil)
	if s.Scheme.Ordered() {
		// The range scheme is pre-split at the quantiles of the keys of the log's first
		// records (trace.Sample), as a replay of it is.
		srd, src, path, err := tf.reopen()
		if err != nil {
			return nil, err
		}
		defer src.Close()
		sample, times, err := trace.Sample(srd, d, compile.TraceSplitSample(shards))
		if err != nil {
			return nil, traceError(path, err)
		}
		d = compile.TraceDesign(s, rd.Names(), sample, times, d.Orders...)
	}
	return d, nil
}

// noSuchField reads spec's problem of a key part that names no field: the field and the
// fields there are, without ts (analyze adds it for the record's time).
func noSuchField(err error) (field, have string, ok bool) {
	var nf *scenario.NoSuchFieldError
	if !errors.As(err, &nf) {
		return "", "", false
	}
	var parts []string
	for _, f := range nf.Have {
		if f != "ts" {
			parts = append(parts, f)
		}
	}
	return nf.Field, strings.Join(parts, ", "), true
}

// splitHint suggests --delimiter and --names when the log's keys are whole (one part,
// key) but its first key holds a usual delimiter: the parts it has and how to name them.
func splitHint(tf *traceFlags, names []string) string {
	if len(names) != 1 || names[0] != "key" {
		return ""
	}
	rd, rc, _, err := tf.reopen()
	if err != nil {
		return ""
	}
	defer rc.Close()
	rec, err := rd.Next()
	if err != nil {
		return ""
	}
	key := string(rec.Key)
	for _, d := range []string{":", "|", "/", "#", ";", "."} {
		n := strings.Count(key, d) + 1
		if n < 2 || n > 8 {
			continue
		}
		ph := make([]string, n)
		for i := range ph {
			ph[i] = fmt.Sprintf("p%d", i+1)
		}
		return fmt.Sprintf(": the log's keys are whole (the first is %q); to key on one of its %d parts, name them: --delimiter %s --names %s", key, n, d, strings.Join(ph, ","))
	}
	return ""
}

func writeRateChart(file, path string, a *trace.Analysis) error {
	l := plots.Lines{Title: "Records per second: " + filepath.Base(path), YLabel: "records/s"}
	var y []float64
	for _, p := range a.Rate {
		l.Times = append(l.Times, p.TS)
		y = append(y, p.PerS)
	}
	if len(y) == 1 {
		l.Times = append(l.Times, l.Times[0]+a.RateWindow)
		y = append(y, y[0])
	}
	l.Series = []plots.Series{{Name: "records", Y: y}}
	if err := plots.WriteLines(file, plots.Format(strings.TrimPrefix(filepath.Ext(file), ".")), l); err != nil {
		return fmt.Errorf("--chart: %v", err)
	}
	return nil
}

// writeAnalysis prints an analysis as text or markdown.
func writeAnalysis(w io.Writer, path string, a *trace.Analysis, md bool) {
	aw := analysisWriter{w: w, md: md}
	aw.summary(path, a)
	aw.operations(a)
	aw.rate(a)
	aw.keys(a.Keys)
	aw.monotonicity(a.Keys)
	if a.Design != nil {
		aw.design(a.Design)
	}
}

// analysisWriter prints the sections of an analysis as text or Markdown (md). A log's keys
// and key parts are untrusted text: each cell passes through the escape for its output
// (docs/architecture.md, "Untrusted text").
type analysisWriter struct {
	w  io.Writer
	md bool
}

// heading opens a section.
func (aw analysisWriter) heading(s string) {
	if aw.md {
		fmt.Fprintf(aw.w, "\n## %s\n\n", s)
	} else {
		fmt.Fprintf(aw.w, "\n%s\n", s)
	}
}

// table prints rows under head: a Markdown table, or text columns padded to their widest
// cell.
func (aw analysisWriter) table(head []string, rows [][]string) {
	if aw.md {
		aw.markdownTable(head, rows)
		return
	}
	for _, r := range rows {
		for i, c := range r {
			r[i] = escape.Line(c)
		}
	}
	width := make([]int, len(head))
	for i, c := range head {
		width[i] = len(c)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	aw.textRow(head, width)
	for _, r := range rows {
		aw.textRow(r, width)
	}
}

// textRow prints the cells of r padded to width, two spaces apart.
func (aw analysisWriter) textRow(r []string, width []int) {
	var b strings.Builder
	for i, c := range r {
		if i > 0 {
			b.WriteString("  ")
		}
		fmt.Fprintf(&b, "%-*s", width[i], c)
	}
	fmt.Fprintln(aw.w, "  "+strings.TrimRight(b.String(), " "))
}

// markdownTable prints rows under head as a Markdown table.
func (aw analysisWriter) markdownTable(head []string, rows [][]string) {
	cells := func(r []string) string {
		out := make([]string, len(r))
		for i, c := range r {
			out[i] = escape.MarkdownCell(c)
		}
		return strings.Join(out, " | ")
	}
	fmt.Fprintf(aw.w, "| %s |\n|%s\n", cells(head), strings.Repeat("---|", len(head)))
	for _, r := range rows {
		fmt.Fprintf(aw.w, "| %s |\n", cells(r))
	}
}

// summary prints the title, the counts of records and lines, and the malformed lines
// quoted.
func (aw analysisWriter) summary(path string, a *trace.Analysis) {
	w := aw.w
	if aw.md {
		fmt.Fprintf(w, "# Trace %s\n", escape.MarkdownText(filepath.Base(path)))
	} else {
		fmt.Fprintf(w, "trace %s (%s)\n", escape.Line(filepath.Base(path)), a.Format)
	}
	if a.DurationS > 0 {
		fmt.Fprintf(w, "%s records from %s lines (%s malformed) over %s s, %.1f records/s on average\n",
			units.Approx(float64(a.Records)), units.Approx(float64(a.Lines)), units.Approx(float64(a.Malformed)), strconv.FormatFloat(a.DurationS, 'f', 1, 64), float64(a.Records)/a.DurationS)
	} else {
		// Records over no time have no rate (the mean used to divide by a nanosecond).
		fmt.Fprintf(w, "%s records from %s lines (%s malformed), all at one timestamp: no rate\n",
			units.Approx(float64(a.Records)), units.Approx(float64(a.Lines)), units.Approx(float64(a.Malformed)))
	}
	for _, b := range a.BadLines {
		line := fmt.Sprintf("malformed line %d (%s): %q", b.Line, b.Why, b.Text)
		if aw.md {
			line = escape.MarkdownText(line)
		}
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// operations prints the records of each operation and of reads and writes, with shares.
func (aw analysisWriter) operations(a *trace.Analysis) {
	aw.heading("Operations")
	var rows [][]string
	var names []string
	var counts []float64
	for _, name := range trace.OpNames {
		if n, ok := a.Ops[name]; ok {
			names = append(names, name)
			counts = append(counts, float64(n))
		}
	}
	for i, sh := range units.PercentShares(counts) {
		rows = append(rows, []string{names[i], strconv.FormatFloat(counts[i], 'f', 0, 64), sh})
	}
	rw := units.PercentShares([]float64{float64(a.Reads), float64(a.Writes)})
	rows = append(rows, []string{"reads", strconv.FormatInt(a.Reads, 10), rw[0]},
		[]string{"writes", strconv.FormatInt(a.Writes, 10), rw[1]})
	aw.table([]string{"op", "records", "share"}, rows)
}

// rate prints the rate over time in at most 12 rows, each the mean rate of a group of
// consecutive windows.
func (aw analysisWriter) rate(a *trace.Analysis) {
	group := max(1, (len(a.Rate)+11)/12)
	aw.heading(fmt.Sprintf("Rate (records/s, mean over %s s)", strconv.FormatFloat(float64(group)*a.RateWindow, 'g', -1, 64)))
	if len(a.Rate) == 0 {
		fmt.Fprintln(aw.w, "none: the records all share one timestamp")
		return
	}
	var means []float64
	for i := 0; i < len(a.Rate); i += group {
		j := min(i+group, len(a.Rate))
		sum := 0.0
		for _, p := range a.Rate[i:j] {
			sum += p.PerS
		}
		means = append(means, sum/float64(j-i))
	}
	var rows [][]string
	for g, m := range means {
		rows = append(rows, []string{strconv.FormatFloat(a.Rate[g*group].TS, 'f', 0, 64), strconv.FormatFloat(m, 'f', 1, 64), bar(m, means)})
	}
	aw.table([]string{"from_s", "per_s", "chart"}, rows)
}

// keys prints the distinct keys, the Zipf fit and the keys that stand out.
func (aw analysisWriter) keys(k trace.Keys) {
	w := aw.w
	aw.heading("Keys")
	distinct := "exact"
	if !k.DistinctExact {
		distinct = "± " + units.Percent(k.DistinctRSE, 2) + " (KMV sketch, one standard error)"
	}
	fmt.Fprintf(w, "distinct keys: %s %s\n", units.Approx(k.Distinct), distinct)
	if k.ZipfRanks > 0 {
		fmt.Fprintf(w, "Zipf exponent: %.3f (maximum likelihood over the top %d keys; Kolmogorov-Smirnov distance %.4f)\n", k.ZipfS, k.ZipfRanks, k.ZipfKS)
	} else {
		fmt.Fprintln(w, "Zipf exponent: - (fewer than 3 keys with 30 records or more)")
	}
	var rows [][]string
	for i, t := range k.Top {
		// A count that is mostly the sketch's error bound is no count: run's key table
		// leaves such keys out by the same rule (detect.StandsOut).
		if t.StandsOut {
			rows = append(rows, []string{strconv.Itoa(i + 1), t.Key, strconv.FormatInt(t.Count, 10), units.Percent(t.Share, 2)})
		}
	}
	switch {
	case len(rows) > 0:
		aw.table([]string{"rank", "key", "records", "share"}, rows)
	case len(k.Top) > 0 && k.Top[0].Error > 0:
		fmt.Fprintf(w, "no key stands out: the sketch's counts are mostly its error bound (it tracks %s of the log's %s keys, and none is certainly more frequent than those it dropped)\n",
			units.Approx(float64(trace.TopCapacity)), units.Approx(k.Distinct))
	case len(k.Top) > 0:
		fmt.Fprintf(w, "no key stands out: none has %d records or more\n", detect.MinStandOut)
	}
}

// monotonicity prints each key part's correlation with time.
func (aw analysisWriter) monotonicity(k trace.Keys) {
	aw.heading("Monotonicity (rank correlation of each key part with time; monotonic at |r| >= 0.7)")
	var rows [][]string
	for _, m := range k.Monotonic {
		rows = append(rows, []string{m.Part, strconv.FormatFloat(m.Score, 'f', 3, 64), strconv.FormatBool(m.Monotonic)})
	}
	aw.table([]string{"part", "score", "monotonic"}, rows)
	// A flag with no way out leaves the user where run's diagnosis does not: name the
	// cure its monotonic_key rule names (docs/detection.md), and the flags that try it.
	for _, m := range k.Monotonic {
		if !m.Monotonic {
			continue
		}
		end, way := "last", "grows"
		if m.Score < 0 {
			end, way = "first", "falls"
		}
		part := escape.Line(m.Part)
		if aw.md {
			fmt.Fprintln(aw.w)
			part = escape.MarkdownText(m.Part)
		}
		fmt.Fprintf(aw.w, "%s %s with time: under a range scheme every new write lands on the %s shard (run's diagnosis calls it monotonic_key): lead the key with another field (a composite key) or a salt bucket, or shard it by hash; try --key %s --scheme range --salt 4 --salt-mode hash --salt-field %s (a read derives its bucket and visits one shard)\n",
			part, way, end, part, part)
	}
}

// design prints where the candidate design sent the requests: fan-out, the hottest shard
// window by window and over the whole log, and each shard's shares.
func (aw analysisWriter) design(d *trace.DesignFigures) {
	w := aw.w
	aw.heading("Design")
	fmt.Fprintf(w, "single-shard requests: %s, scatter-gather: %s, mean fan-out %.2f\n", units.Percent(d.SingleShardShare, 2), units.Percent(1-d.SingleShardShare, 2), d.MeanFanout)
	even := units.Percent(1/float64(len(d.Shards)), 2)
	// What a cluster sees at a time leads; the whole log's totals follow, since a hot
	// spot that moves (a key that grows with time) evens out over the log.
	fmt.Fprintf(w, "hottest shard window by window (even: %s; the mean is over the windows, weighted by their visits):\n", even)
	aw.spreads(d)
	fmt.Fprintf(w, "hottest shard over the whole log: %d with %s of all shard visits (even: %s)\n", d.HottestShard, units.Percent(d.HottestShare, 2), even)
	aw.shards(d)
}

// spreads prints the busiest window and the mean hottest share of writes and of reads, as
// a list.
func (aw analysisWriter) spreads(d *trace.DesignFigures) {
	item := "  "
	if aw.md {
		item = "- "
		fmt.Fprintln(aw.w)
	}
	for _, sp := range []struct {
		what, unit string
		ws         trace.WindowSpread
	}{{"writes: ", "writes", d.WriteSpread}, {"reads:  ", "read visits", d.ReadSpread}} {
		if sp.ws.Windows == 0 {
			continue
		}
		fmt.Fprintf(aw.w, "%s%s%s in the busiest window (shard %d; %s %s from %s s, windows of %s s), %s on the mean\n",
			item, sp.what, units.Percent(sp.ws.BusiestShare, 2), sp.ws.BusiestShard, units.Approx(float64(sp.ws.BusiestVisits)), sp.unit,
			strconv.FormatFloat(sp.ws.BusiestTS, 'f', 0, 64), strconv.FormatFloat(sp.ws.WindowS, 'g', -1, 64), units.Percent(sp.ws.MeanHottestShare, 2))
	}
	if aw.md {
		fmt.Fprintln(aw.w)
	}
}

// shards prints each shard's shares of the writes and reads, and under a range scheme
// where its range begins.
func (aw analysisWriter) shards(d *trace.DesignFigures) {
	var ws, rs []float64
	for _, s := range d.Shards {
		ws, rs = append(ws, s.WriteShare), append(rs, s.ReadShare)
	}
	wp, rp := units.PercentShares(ws), units.PercentShares(rs)
	var rows [][]string
	for i, s := range d.Shards {
		row := []string{strconv.Itoa(s.ID), wp[i], rp[i]}
		if d.Splits != nil {
			row = append(row, rangeStart(d.Splits, i))
		}
		rows = append(rows, row)
	}
	head := []string{"shard", "writes", "reads"}
	if d.Splits != nil {
		head = append(head, "from (range splits cut from the log's first tenth)")
	}
	aw.table(head, rows)
}

// rangeStart is where shard i's range begins, written as the log writes its keys: "-" for
// the first, a tuple of several key parts in parentheses.
func rangeStart(splits [][]string, i int) string {
	if i == 0 || i-1 >= len(splits) {
		return "-"
	}
	from := strings.Join(splits[i-1], ", ")
	if len(splits[i-1]) > 1 {
		from = "(" + from + ")"
	}
	return from
}

// bar draws v as a bar of up to 30 characters against the largest of all.
func bar(v float64, all []float64) string {
	m := 0.0
	for _, x := range all {
		m = max(m, x)
	}
	if m <= 0 {
		return ""
	}
	return strings.Repeat("#", int(math.Round(30*v/m)))
}

func setupFit(flags *pflag.FlagSet) func(stdout, stderr io.Writer) error {
	fs := flags
	var tf traceFlags
	tf.register(fs)
	var out, name string
	textVar(fs, &out, "out", "o", "file", "the scenario file to write (required)")
	fs.StringVar(&name, "name", "", "the scenario's name")
	showDefault(fs, "name", "fit-<the log's file name>, e.g. fit-access for access.csv")
	// --format, --log-format's old name: fit writes a scenario file, so it has no output
	// format, and the value is read as the log's, with a note.
	var formats []string
	fs.Var(listValue{&formats, "string"}, "format", "--log-format's old name: read as --log-format, with a note (fit has no output format)")
	_ = fs.MarkHidden("format")
	return func(stdout, stderr io.Writer) error {
		if rest := tf.legacy(formats, stderr); len(rest) > 0 {
			return usagef("--format: fit writes a scenario file and has no output format; the log's format is --log-format %s (got %q)", strings.Join(trace.Formats(), ", "), rest[0])
		}
		if out == "" {
			return argsError("fit", "-o FILE is required")
		}
		rd, rc, path, err := tf.open("fit", fs.Args(), fs)
		if err != nil {
			return err
		}
		defer rc.Close()
		if err := checkOutFile("-o", out, path); err != nil {
			return err
		}
		if name == "" {
			name = fittedName(filepath.Base(path))
		}
		a, err := trace.Analyze(rd, trace.Config{Parts: true})
		if err != nil {
			return traceError(path, err)
		}
		if a.Records == 0 {
			return usagef("%s: the log holds no record to fit", path)
		}
		if a.DurationS == 0 {
			// A count over no time is no rate: the fitted schedule would be 0/s.
			return usagef("%s: the log's %s records all share one timestamp, so it has no rate to fit", path, units.Approx(float64(a.Records)))
		}
		fit := trace.Fit(a, trace.FitOptions{Name: name, Source: filepath.Base(path)})
		// What fit writes must load: check it as validate would before writing it.
		if _, err := scenarios.LoadBytes(out, fit.TOML, scenarios.Options{}); err != nil {
			return usagef("the fitted scenario does not load (--name %q?): %v", name, err)
		}
		for _, n := range fit.Notes {
			fmt.Fprintf(stderr, "note: %s: %s\n", path, n)
		}
		if err := atomicfile.Write(out, fit.TOML); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: %s records over %s s, %.1f%% reads, key [%s]\n",
			out, units.Approx(float64(a.Records)), strconv.FormatFloat(a.DurationS, 'f', 1, 64),
			100*float64(a.Reads)/float64(max(a.Records, 1)), strings.Join(fit.Key, ", "))
		for _, f := range fit.Fields {
			fmt.Fprintf(stdout, "  %s\n", f)
		}
		return nil
	}
}

// fittedName makes a scenario name of a file name: lower-case letters, digits and
// dashes, without its extensions.
func fittedName(file string) string {
	base, _, _ := strings.Cut(file, ".")
	var b strings.Builder
	for _, r := range strings.ToLower(base) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	n := strings.Trim(b.String(), "-")
	if n == "" {
		n = "fitted"
	}
	return "fit-" + n[:min(len(n), 40)]
}

// quotedList writes names as "a", "b", "c".
func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// orList writes names as a, b or c.
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
