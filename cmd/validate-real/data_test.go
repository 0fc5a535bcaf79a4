package main

import (
	"encoding/json"
	"os"
	"testing"
)

// TestReportFromData: docs/validation.md is what the report writer makes of the
// measurements beside it (docs/validation-data.json), so the doc holds no figure typed by
// hand, and a change to the writer that changes the doc shows here.
func TestReportFromData(t *testing.T) {
	data, err := os.ReadFile("../../docs/validation-data.json")
	if err != nil {
		t.Fatal(err)
	}
	var rep report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	rep.Out = "docs/validation.md" // the path it was written to is not among the measurements
	want, err := os.ReadFile("../../docs/validation.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.markdown(); got != string(want) {
		t.Errorf("docs/validation.md is not what the report writer makes of docs/validation-data.json (%d bytes against %d)", len(got), len(want))
	}
}
