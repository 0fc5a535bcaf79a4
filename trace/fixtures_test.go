package trace

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

var update = flag.Bool("update", false, "rewrite the generated logs under testdata/traces and scenarios/traces")

// fixtures are the small logs the repository ships, each generated here from its seed:
// one per format under testdata/traces (the docs and tests read them), and the log the
// built-in replay-demo scenario replays.
var fixtures = []struct {
	path string
	g    Synthetic
}{
	{"../testdata/traces/access.csv", Synthetic{Format: CSV, Lines: 3000, Rate: 50, Keys: 500, S: 1.1, Reads: 0.7, Sequential: true, Seed: 11, Start: 1_700_000_000}},
	{"../testdata/traces/twitter.log.zst", Synthetic{Format: Twitter, Lines: 6000, Rate: 100, RampTo: 300, Keys: 2000, S: 1.0, Reads: 0.8, Seed: 12, Start: 1_700_000_000}},
	{"../testdata/traces/kvcache.csv.gz", Synthetic{Format: KVCache, Lines: 4000, Rate: 80, Keys: 1000, S: 0.9, Reads: 0.9, Seed: 13, Start: 1_700_000_000}},
	{"../scenarios/traces/replay-demo.log.gz", Synthetic{Format: Twitter, Lines: 12000, Rate: 150, RampTo: 450, Keys: 5000, S: 1.1, Reads: 0.75, Seed: 14, Start: 1_700_000_000}},
}

// TestFixtures checks that every shipped log is what its generator writes (compared after
// decompression, so a new compressor version changes nothing), under 200 KB; -update
// rewrites them.
func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		var plain bytes.Buffer
		if err := fx.g.Write(&plain); err != nil {
			t.Fatal(err)
		}
		if *update {
			var out bytes.Buffer
			switch {
			case strings.HasSuffix(fx.path, ".gz"):
				zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
				zw.Write(plain.Bytes())
				zw.Close()
			case strings.HasSuffix(fx.path, ".zst"):
				zw, _ := zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
				zw.Write(plain.Bytes())
				zw.Close()
			default:
				out = plain
			}
			os.MkdirAll(filepath.Dir(fx.path), 0o755)
			if err := os.WriteFile(fx.path, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		st, err := os.Stat(fx.path)
		if err != nil {
			t.Fatalf("%v (go test ./trace -run TestFixtures -update writes it)", err)
		}
		if st.Size() > 200<<10 {
			t.Errorf("%s: %d bytes, more than 200 KB", fx.path, st.Size())
		}
		rc, err := Open(os.DirFS(filepath.Dir(fx.path)), filepath.Base(fx.path))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, plain.Bytes()) {
			t.Errorf("%s differs from its generator's output (go test ./trace -run TestFixtures -update)", fx.path)
		}
	}
}
