package main

import (
	"testing"

	"github.com/shardsim/shardsim/compile"
)

// TestDescribeOncePerRun holds docs/architecture.md's "run describes its scenario once
// (compile.Describe) and every reader shares that", where cli.go described it twice: a run
// of a two-variant scenario calls compile.Describe once. Not parallel, so that no other
// test's run counts.
func TestDescribeOncePerRun(t *testing.T) {
	before := compile.Described()
	code, _, stderr := call(t, "run", "../../testdata/small.toml", "-q", "-o", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := compile.Described() - before; got != 1 {
		t.Errorf("run described its scenario %d times (compile.Describe): describe it once and hand that description to every reader (the series, the charts, the summary, the report)", got)
	}
}
