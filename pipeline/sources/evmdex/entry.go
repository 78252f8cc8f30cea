package evmdex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
)

// Observer receives the connector's operational events. It has the method
// set of the sources configuration's observer (pipeline.Stats implements
// it), so a live configuration hands its observer through unchanged.
type Observer interface {
	SetState(name, state string, err error)
	Reconnect(name string)
	Gap(name string, fromNs, toNs int64, reason string)
}

// Entry is a sources-configuration entry of kind "evmdex": one chain and its
// pools, e.g.
//
//	{"kind": "evmdex", "chain": "base", "rpc": "wss://base-rpc.publicnode.com",
//	 "confirmations": 5, "poll_interval": "2s", "max_range": 500,
//	 "pools": [{"address": "0xd0b5...f224", "name": "WETH/USDC 0.05%"}]}
//
// The name defaults to "evmdex:<chain>"; a pool's chain defaults to the
// entry's.
type Entry struct {
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Disabled bool   `json:"disabled"`
	ChainConfig
	Pools []PoolConfig `json:"pools"`
	// SnapshotRate is the rate of the pool-state reads (eth_call per
	// second); 0 means DefaultSnapshotRate. NoSnapshots turns them off.
	SnapshotRate float64 `json:"snapshot_rate,omitempty"`
	NoSnapshots  bool    `json:"no_snapshots,omitempty"`
}

// FromEntry opens the source a configuration entry describes (raw is the
// whole entry). Unknown fields are errors. Nothing connects until Next.
func FromEntry(raw []byte, obs Observer, log *slog.Logger) (*Source, error) {
	var e Entry
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&e); err != nil {
		return nil, fmt.Errorf("cannot use source (kind evmdex): %w", err)
	}
	if e.Kind != "evmdex" {
		return nil, fmt.Errorf("cannot use source %q: kind %q is not evmdex", e.Name, e.Kind)
	}
	for i := range e.Pools {
		if e.Pools[i].Chain == "" {
			e.Pools[i].Chain = e.Chain
		}
	}
	f := File{Chains: []ChainConfig{e.ChainConfig}, Pools: e.Pools}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if e.SnapshotRate < 0 {
		return nil, fmt.Errorf("cannot use source %q: snapshot_rate must not be negative", e.Name)
	}
	cfg := Config{ChainConfig: e.ChainConfig, Pools: e.Pools, Observer: obs, Name: e.Name, SnapshotRate: e.SnapshotRate, NoSnapshots: e.NoSnapshots}
	if log != nil {
		cfg.Logf = func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) }
	}
	return New(cfg)
}
