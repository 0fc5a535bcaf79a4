package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/pflag"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/runs/capacity"
	"github.com/shardsim/shardsim/runs/cluster"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

// An interrupted sweep or capacity search keeps its finished runs in its output directory
// (docs/sweeps.md, "Interrupted sweeps"; docs/capacity.md, "Interrupted searches"): partialRuns holds one line per run as it
// finishes, and partialManifest what made them (the command, the scenario's hash, the
// flags and the build), so that the same command with --resume takes them instead of
// running them again, and ends with the files an uninterrupted search writes. Anything
// else asking to resume there is refused before the directory is touched.
const (
	partialRuns     = "runs.partial.jsonl"
	partialManifest = "resume.json"
)

// resumeManifest is what made the runs of an interrupted search.
type resumeManifest struct {
	name     string        // the results the directory is for ("orders capacity")
	Command  string        `json:"command"`
	Scenario string        `json:"scenario"`
	SHA256   string        `json:"scenario_sha256"`
	Flags    []string      `json:"flags"`
	Build    cluster.Build `json:"build"`
}

// notResumed are the flags that change how a search runs or what it prints, not its runs.
var notResumed = []string{"resume", "quiet", "parallel", "engine-cores", "format", "force", "no-charts", "chart-format"}

// newResumeManifest describes the command kind run with fs's flags on scenario.
func newResumeManifest(kind, scenario string, opts scenarios.Options, fs *pflag.FlagSet) resumeManifest {
	m := resumeManifest{name: filepath.Base(scenario) + " " + kind, Command: kind, Scenario: scenario, Build: cluster.ThisBuild(version)}
	if sc, err := scenarios.Load(scenario, opts); err == nil {
		m.SHA256, m.name = sc.SHA256, sc.Name+" "+kind
	}
	fs.Visit(func(f *pflag.Flag) {
		if slices.Contains(notResumed, f.Name) {
			return
		}
		m.Flags = append(m.Flags, "--"+f.Name+"="+f.Value.String())
	})
	slices.Sort(m.Flags)
	m.Flags = append([]string{}, m.Flags...)
	return m
}

// differs names what of m differs from o, or "".
func (m resumeManifest) differs(o resumeManifest) string {
	switch {
	case m.Command != o.Command:
		return fmt.Sprintf("it was written by %s, not %s", o.Command, m.Command)
	case m.Scenario != o.Scenario || m.SHA256 != o.SHA256:
		return fmt.Sprintf("its runs are of scenario %s (sha256 %.12s), not %s (sha256 %.12s)", o.Scenario, o.SHA256, m.Scenario, m.SHA256)
	case !slices.Equal(m.Flags, o.Flags):
		return fmt.Sprintf("its flags were %v, not %v", o.Flags, m.Flags)
	case m.Build != o.Build:
		return fmt.Sprintf("its runs were made by another build (%v; this is %v)", o.Build, m.Build)
	}
	return ""
}

// partialRun is one line of partialRuns: a run and its ID (capacity.RunID or
// sweep.RunID).
type partialRun[ID any] struct {
	ID  ID           `json:"id"`
	Run *metrics.Run `json:"run"`
}

// readPartial checks, for --resume, that dir holds an interrupted search made by m and
// returns its runs; a usage error (exit 2) when it does not, with nothing written.
func readPartial[ID comparable](dir string, m resumeManifest) (map[ID][]*metrics.Run, error) {
	b, err := os.ReadFile(filepath.Join(dir, partialManifest))
	if err != nil {
		return nil, usagef("--resume: %s holds no interrupted %s (no %s)", dir, m.Command, partialManifest)
	}
	var old resumeManifest
	if err := json.Unmarshal(b, &old); err != nil {
		return nil, usagef("--resume: %s: %v", filepath.Join(dir, partialManifest), err)
	}
	if why := m.differs(old); why != "" {
		return nil, usagef("--resume: %s holds an interrupted search this command did not start: %s; run it without --resume into another -o", dir, why)
	}
	made := map[ID][]*metrics.Run{}
	f, err := os.Open(filepath.Join(dir, partialRuns))
	if errors.Is(err, os.ErrNotExist) {
		return made, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var r partialRun[ID]
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Run == nil {
			continue // a line cut short when the process was killed: that run is made again
		}
		made[r.ID] = append(made[r.ID], r.Run)
	}
	return made, sc.Err()
}

// partialLog appends each finished run to dir's partialRuns (a fresh file unless
// resuming), and on an interruption writes the manifest and a marker that lets the same
// command claim the directory again.
type partialLog struct {
	dir  string
	m    resumeManifest
	f    *os.File
	runs int
	// after, when above 0, interrupts the search once that many runs are recorded (tests).
	after int
	stop  func() bool
}

func newPartialLog(dir string, m resumeManifest, resume bool) (*partialLog, error) {
	flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if !resume {
		flag |= os.O_TRUNC
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, partialRuns), flag, 0o644)
	if err != nil {
		return nil, err
	}
	return &partialLog{dir: dir, m: m, f: f, after: testInterruptAfter}, nil
}

// testInterruptAfter, when above 0, interrupts sweep and capacity after that many runs,
// as Ctrl-C would (tests).
var testInterruptAfter int

// record appends one run of a capacity search.
func (p *partialLog) record(id capacity.RunID, r *metrics.Run) error {
	return p.write(partialRun[capacity.RunID]{id, r})
}

// recordSweep appends one run of a sweep.
func (p *partialLog) recordSweep(id sweep.RunID, r *metrics.Run) error {
	return p.write(partialRun[sweep.RunID]{id, r})
}

// write appends one line.
func (p *partialLog) write(line any) error {
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	if _, err := p.f.Write(append(b, '\n')); err != nil {
		return err
	}
	p.runs++
	return nil
}

// stopped is the search's Stop: the user's interrupt, or the test's.
func (p *partialLog) stopped() bool {
	return p.stop() || p.after > 0 && p.runs >= p.after
}

// interrupted keeps what the search made: the manifest, and a marker naming the results
// this directory is for.
func (p *partialLog) interrupted() error {
	p.f.Close()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p.m); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(p.dir, partialManifest), b.Bytes()); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(p.dir, markerFile)); err != nil {
		text := p.m.name + "\n# an interrupted search's runs, for --resume:\n" + partialManifest + "\n" + partialRuns + "\n"
		return atomicfile.Write(filepath.Join(p.dir, markerFile), []byte(text))
	}
	return nil
}

// done removes the partial files once the search's results are written.
func (p *partialLog) done() {
	p.f.Close()
	os.Remove(filepath.Join(p.dir, partialRuns))
	os.Remove(filepath.Join(p.dir, partialManifest))
}
