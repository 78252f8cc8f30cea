package soldex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"
)

// Entry is a sources-configuration entry of kind "soldex", e.g.
//
//	{"kind": "soldex", "rpc": "https://api.mainnet-beta.solana.com", "poll_interval": "2s",
//	 "pools": [{"address": "<vault owner>", "venue": "raydium_clmm", "name": "SOL/USDC",
//	            "base_mint": "So11111111111111111111111111111111111111112",
//	            "quote_mint": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"}]}
type Entry struct {
	Kind         string `json:"kind"`
	Name         string `json:"name"`
	Disabled     bool   `json:"disabled"`
	RPC          string `json:"rpc"`
	PollInterval string `json:"poll_interval"`
	Pools        []Pool `json:"pools"`
}

// FromEntry opens the source a configuration entry describes (raw is the
// whole entry); unknown fields are errors. Nothing connects until Next.
func FromEntry(raw []byte, log *slog.Logger) (*Source, error) {
	var e Entry
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&e); err != nil {
		return nil, fmt.Errorf("cannot use source (kind soldex): %w", err)
	}
	if e.Kind != "soldex" {
		return nil, fmt.Errorf("cannot use source %q: kind %q is not soldex", e.Name, e.Kind)
	}
	cfg := Config{RPC: e.RPC, Pools: e.Pools}
	if e.PollInterval != "" {
		v, err := time.ParseDuration(e.PollInterval)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("cannot use source %q: poll_interval %q is not a positive duration such as \"2s\"", e.Name, e.PollInterval)
		}
		cfg.PollInterval = v
	}
	if log != nil {
		cfg.Logf = func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) }
	}
	return New(cfg)
}
