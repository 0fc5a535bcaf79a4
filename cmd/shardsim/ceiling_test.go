package main

import (
	"strings"
	"testing"
)

// TestMaxUtilizationBadInput: --max-utilization 0, negative, over 1 or not a number is
// refused by sweep and capacity alike with exit status 2, naming the flag, before
// anything runs or is written.
func TestMaxUtilizationBadInput(t *testing.T) {
	for _, cmd := range []string{"sweep", "capacity"} {
		for _, v := range []string{"0", "-0.5", "1.5", "150%", "lots", "NaN"} {
			dir := t.TempDir() + "/out"
			code, _, stderr := call(t, cmd, "quickstart", "--vary", "cluster.nodes=2,3", "--slo", "get_user:p99<50ms", "--max-utilization", v, "-o", dir, "-q")
			if code != 2 || !strings.Contains(stderr, "--max-utilization") || !strings.Contains(stderr, "want a share of a node's cores above 0 and at most 1") {
				t.Errorf("%s --max-utilization %s: exit %d, stderr %q; want 2 naming the flag", cmd, v, code, stderr)
			}
		}
	}
}

// TestSanityWarnings: a cost typed in seconds for milliseconds (orders-svc's create_order,
// "0.6s" for "0.6ms") still validates, exit status 0, but validate warns of every node
// the utilization law puts past its cores and names the stream with the most work, with
// the hint that its cost may be a thousand times off; explain warns as well, and of the
// nodes past the ceiling (orders-svc as written: node 1 past its cores, node 0 past 85%).
func TestSanityWarnings(t *testing.T) {
	code, stdout, stderr := call(t, "validate", "../../testdata/orders-svc.toml", "--set", `streams.create_order.cost="0.6s"`)
	if code != 0 || !strings.Contains(stdout, ": ok: orders-svc") {
		t.Fatalf("validate: exit %d, stdout %q; want 0 and ok", code, stdout)
	}
	for _, want := range []string{
		"warning: ../../testdata/orders-svc.toml: node 0 is predicted at ",
		"of its 4 cores at peak: past its cores",
		"stream create_order offers the most work: 8,000/s x 0.6s x 1.0 partitions",
		"a cost a thousand times smaller (0.6ms rather than 0.6s)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("validate's stderr lacks %q:\n%s", want, stderr)
		}
	}
	code, stdout, stderr = call(t, "validate", "../../testdata/orders-svc.toml")
	if code != 0 || !strings.Contains(stderr, "warning: ../../testdata/orders-svc.toml: node 1 is predicted at 100.2% of its 4 cores at peak") ||
		strings.Contains(stderr, "thousand") || strings.Contains(stderr, "node 0") {
		t.Errorf("validate as written: exit %d, stderr %q; want node 1 past its cores, no hint, and nothing of node 0 (under its cores)", code, stderr)
	}
	code, stdout, _ = call(t, "explain", "../../testdata/orders-svc.toml")
	for _, want := range []string{
		"warning: node 0 is predicted at 93.7% of its 4 cores at peak: past the 85% ceiling",
		"warning: node 1 is predicted at 100.2% of its 4 cores at peak: past its cores",
		"warning: stream get_order offers the most work: 40,000/s x 0.3ms x 1.0 partitions = 12.0 cores at its peak rate, of the cluster's 20",
	} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("explain: exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
	if strings.Contains(stdout, "thousand") {
		t.Errorf("explain hints at a cost a thousand times off where no stream alone passes the cluster's cores:\n%s", stdout)
	}
}
