package detect

// Config is what detection records and reports for a design: the scenario's [detect]
// table with its defaults applied (docs/detection.md). The engine reads the first three
// (what it samples and keeps); the readers of a run's figures read TopK and the outlier
// rule. It is the one type of these settings from the scenario to the report.
type Config struct {
	// TopK is how many hot keys and hot partitions are reported per stream; the sketch
	// tracks max(25·TopK, 256) candidates. 0: DefaultTopK.
	TopK int
	// SampleEvery is how often, on average, a request is sampled for detection (hot keys,
	// hot partitions, per-key latency): one request in SampleEvery, at random. 0:
	// DefaultSampleEvery.
	SampleEvery int
	// MaxKeys bounds the keys the per-key latency statistics hold: the first keys sampled;
	// later ones are not tracked. Its tables are touched at random, so a large one costs
	// speed (65,536 keys: about 20 ns per request). 0: DefaultMaxKeys.
	MaxKeys int
	// OutlierFactor: a key whose sampled mean latency is above OutlierFactor times the
	// median key's is an outlier, over the keys with OutlierMinSamples samples or more.
	OutlierFactor     float64
	OutlierMinSamples int
}

// The defaults of Config, what detection does without a [detect] table.
const (
	DefaultTopK              = 10
	DefaultSampleEvery       = 64
	DefaultMaxKeys           = 4096
	DefaultOutlierFactor     = 10
	DefaultOutlierMinSamples = 50
)

// Default is detection's settings without a [detect] table.
var Default = Config{
	TopK: DefaultTopK, SampleEvery: DefaultSampleEvery, MaxKeys: DefaultMaxKeys,
	OutlierFactor: DefaultOutlierFactor, OutlierMinSamples: DefaultOutlierMinSamples,
}
