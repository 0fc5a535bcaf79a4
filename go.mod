module github.com/shardsim/shardsim

go 1.24.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/HdrHistogram/hdrhistogram-go v1.4.0
	github.com/spf13/pflag v1.0.10
)

require gonum.org/v1/gonum v0.17.0 // indirect
