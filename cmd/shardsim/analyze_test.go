package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/trace"
)

// TestAnalyzeSharesAddUp: in analyze's text, each column of shares adds up to exactly
// 100.00% (replay-demo: 8,991 gets and 3,009 sets are 74.925% and 25.075%, which plain
// rounding prints as 74.92% and 25.07%), and each share is within 0.01 of its count's.
func TestAnalyzeSharesAddUp(t *testing.T) {
	code, out, errs := call(t, "analyze", "replay-demo", "--key", "id", "--shards", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sum := func(re string) float64 {
		total := 0.0
		for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(out, -1) {
			v, _ := strconv.ParseFloat(m[1], 64)
			total += v
		}
		return total
	}
	for what, re := range map[string]string{
		"op":     `(?m)^  (?:get|set) +\d+ +(\d+\.\d\d)%$`,
		"reads":  `(?m)^  (?:reads|writes) +\d+ +(\d+\.\d\d)%$`,
		"writes": `(?m)^  \d +(\d+\.\d\d)% +\d+\.\d\d%$`,
		"shard":  `(?m)^  \d +\d+\.\d\d% +(\d+\.\d\d)%$`,
	} {
		if s := sum(re); s < 99.995 || s > 100.005 {
			t.Errorf("%s shares add up to %.2f%%, want 100.00%%:\n%s", what, s, out)
		}
	}
	if !strings.Contains(out, "  get     8991     74.93%\n") || !strings.Contains(out, "  set     3009     25.07%\n") {
		t.Errorf("get and set shares: want 74.93%% and 25.07%%:\n%s", out)
	}
}

// TestAnalyzeDesignFlagsNeedKey: --scheme, --shards and --salt describe a candidate design,
// which --key names; without it they are an error naming the flag (exit 2), not ignored.
// A --key part the log's keys do not have, when they are whole but hold a delimiter, gets
// the --delimiter and --names that would split them.
func TestAnalyzeDesignFlagsNeedKey(t *testing.T) {
	log := "../../testdata/traces/access.csv"
	for _, flag := range []string{"--shards=8", "--scheme=range", "--salt=4"} {
		code, _, errs := call(t, "analyze", log, flag)
		name, _, _ := strings.Cut(flag, "=")
		if code != 2 || !strings.Contains(errs, name+" describes a candidate design, which needs --key") {
			t.Errorf("analyze %s: exit %d, %q; want 2 and the flag named", flag, code, errs)
		}
	}
	code, _, errs := call(t, "analyze", log, "--key", "id")
	want := `--key: no such part "id" among the log's key parts (have key; ts is the record's time): the log's keys are whole (the first is "ns1:u:1"); to key on one of its 3 parts, name them: --delimiter : --names p1,p2,p3`
	if code != 2 || !strings.Contains(errs, want) {
		t.Errorf("analyze --key id: exit %d, %q; want 2 and %q", code, errs, want)
	}
}

// TestAnalyzeSaltDoc runs docs/traces.md's salt comparison on access.csv (auto-increment
// ids, range-sharded over 8 shards, without salt and with 4 random buckets) and fills its
// figures: without salt one shard takes most of each window's writes (at least 85% on
// the mean: the log's first tenth, where the splits come from, is spread, the rest lands
// on the last shard); with 4 buckets the busiest window's hottest shard takes about a
// quarter (at most 30%: 479 writes split four ways, 1/4 plus two standard errors is
// 0.29), and the reads fan out to the buckets.
func TestAnalyzeSaltDoc(t *testing.T) {
	base := []string{"analyze", "../../testdata/traces/access.csv", "--delimiter", ":", "--names", "ns,kind,id", "--key", "id", "--scheme", "range", "--shards", "8"}
	writes := regexp.MustCompile(`(?m)^  writes: (\d+\.\d\d)% in the busiest window \(shard \d+; [\d,]+ writes from \d+ s, windows of (\d+) s\), (\d+\.\d\d)% on the mean$`)
	fanout := regexp.MustCompile(`(?m)mean fan-out (\d+\.\d\d)$`)
	figs := map[string]string{}
	for _, salt := range []string{"1", "4"} {
		code, out, errs := call(t, append(base, "--salt", salt)...)
		if code != 0 {
			t.Fatalf("salt %s: exit %d: %s", salt, code, errs)
		}
		w, f := writes.FindStringSubmatch(out), fanout.FindStringSubmatch(out)
		if w == nil || f == nil {
			t.Fatalf("salt %s: no window-by-window writes line or fan-out:\n%s", salt, out)
		}
		busiest, _ := strconv.ParseFloat(w[1], 64)
		mean, _ := strconv.ParseFloat(w[3], 64)
		switch salt {
		case "1":
			if mean < 85 || f[1] != "1.00" {
				t.Errorf("salt 1: %.2f%% of the writes on their window's hottest shard, fan-out %s; want >= 85%% and 1.00", mean, f[1])
			}
			figs["tr.salt1.busiest"], figs["tr.salt1.mean"], figs["tr.salt1.window"] = w[1]+"%", w[3]+"%", w[2]
		case "4":
			if busiest > 30 || mean > 30 {
				t.Errorf("salt 4: busiest window's hottest shard %.2f%%, mean %.2f%%; want at most 30%%", busiest, mean)
			}
			figs["tr.salt4.busiest"], figs["tr.salt4.fanout"] = w[1]+"%", f[1]
		}
	}
	docmark.Apply(t, &docmark.Parts{Owner: "tr", Figs: figs, Update: *update}, "../../docs/traces.md")
}

// TestAnalyzeNoKeyStandsOut: a log of 200,000 writes of auto-increment ids, each id five
// times in a row (40,000 ids, more than the 32,768 keys the Space-Saving sketch tracks).
// Every key has 5 records; the full sketch's top counts are 10, of which 5 are its error
// bound, and the table used to list ten of them at 10. Now analyze says that no key stands
// out and lists none (the same rule as run's key table, and no certain count above the
// sketch's smallest), and -f json marks each listed key stands_out: false; replay-demo's
// Zipf keys (the most frequent 1,849 records of 12,000) still stand out.
func TestAnalyzeNoKeyStandsOut(t *testing.T) {
	var b strings.Builder
	b.WriteString("ts,op,key\n")
	for i := range 200_000 {
		fmt.Fprintf(&b, "%.4f,write,%d\n", float64(i)/2000, i/5)
	}
	log := filepath.Join(t.TempDir(), "autoinc.csv")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := call(t, "analyze", log)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "no key stands out: the sketch's counts are mostly its error bound") || strings.Contains(out, "rank  key") {
		t.Errorf("want no key table and the note that no key stands out:\n%s", out)
	}
	code, out, errs = call(t, "analyze", log, "-f", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var a trace.Analysis
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Keys.Top) == 0 {
		t.Fatal("no top keys in the json")
	}
	for _, k := range a.Keys.Top {
		if k.StandsOut || k.Count-k.Error > 5 {
			t.Errorf("key %s: count %d, error %d, stands_out %v; want a count that is half error and stands_out false", k.Key, k.Count, k.Error, k.StandsOut)
		}
	}
	code, out, errs = call(t, "analyze", "replay-demo")
	if code != 0 || !strings.Contains(out, "  1     ns1:u:1489  1849     15.41%") {
		t.Errorf("replay-demo: exit %d, %s; want its top key listed:\n%s", code, errs, out)
	}
}

// TestAnalyzeFormatFlags: on analyze, --format (-f) is what goes to stdout, as on every
// other command, and the log's format is --log-format. `analyze LOG --format json` used to
// fail (json is no log format). The old use, --format with a log's format, still works on
// analyze and fit, with a note on stderr, and --output-format still names the output's.
func TestAnalyzeFormatFlags(t *testing.T) {
	const log = "../../testdata/traces/kvcache.csv.gz"
	tests := []struct {
		args      []string
		stdout    string // a prefix of stdout
		note      bool   // a note about --format on stderr
		logFormat string // in the JSON
	}{
		{[]string{"analyze", "../../testdata/traces/access.csv", "--format", "json"}, "{", false, "csv"},
		{[]string{"analyze", log, "--log-format", "kvcache", "-f", "json"}, "{", false, "kvcache"},
		{[]string{"analyze", log, "--format", "kvcache", "-f", "json"}, "{", true, "kvcache"},
		{[]string{"analyze", log, "--format", "kvcache", "--output-format", "json"}, "{", true, "kvcache"},
		{[]string{"analyze", log, "--format", "kvcache"}, "trace kvcache.csv.gz (kvcache)", true, ""},
		{[]string{"fit", log, "--format", "kvcache", "-o", t.TempDir() + "/kv.toml"}, "wrote ", true, ""},
	}
	for _, tc := range tests {
		code, out, errs := call(t, tc.args...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", tc.args, code, errs)
			continue
		}
		if !strings.HasPrefix(out, tc.stdout) {
			t.Errorf("%q: stdout starts %.60q, want %q", tc.args, out, tc.stdout)
		}
		if got := strings.Contains(errs, "note: --format kvcache is read as --log-format kvcache"); got != tc.note {
			t.Errorf("%q: a note on stderr %v, want %v (stderr %q)", tc.args, got, tc.note, errs)
		}
		if tc.logFormat != "" && !strings.Contains(out, `"format": "`+tc.logFormat+`"`) {
			t.Errorf("%q: the JSON does not say the log's format is %s", tc.args, tc.logFormat)
		}
	}
	// A value that is neither an output format nor a log's: exit 2, naming both flags.
	code, _, errs := call(t, "analyze", log, "--format", "yaml")
	if code != 2 || !strings.Contains(errs, "--format: want text, markdown or json") || !strings.Contains(errs, "--log-format") {
		t.Errorf("--format yaml: exit %d, stderr %q; want 2 and a message naming --format and --log-format", code, errs)
	}
}
