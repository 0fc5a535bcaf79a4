package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
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
