package pool_test

import (
	"testing"

	"github.com/shardsim/shardsim/scenarios/scenariotest"
)

// TestTranscripts runs the connection pool's stories under testdata: each scenario's variants,
// and their figures as the outputs show them, byte for byte (mechtest.Transcripts).
func TestTranscripts(t *testing.T) {
	scenariotest.Transcripts(t, nil)
}
