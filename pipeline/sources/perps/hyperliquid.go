package perps

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// Hyperliquid (https://api.hyperliquid.xyz/info, POST JSON). Endpoint read
// per poll and per configured dex ("" is the main dex, "xyz" a HIP-3 builder
// dex listing stock and index perps):
//
//	{"type":"metaAndAssetCtxs","dex":<dex>}  [meta{universe:[{name, szDecimals, maxLeverage, isDelisted?, …}]}, [ctx{funding, openInterest, markPx, oraclePx, dayNtlVlm, premium, midPx, impactPxs, prevDayPx, dayBaseVlm}]]
//
// The i-th context belongs to the i-th universe entry. funding is the rate
// of the running hour (Hyperliquid pays funding every hour); openInterest is
// in coins (one side). The answer carries no timestamp: the observation time
// is the answer's HTTP Date header (docs/positioning.md).

// HyperliquidFundingHours is Hyperliquid's funding interval: funding is paid
// every hour, on every perp dex.
const HyperliquidFundingHours = 1

// HLAsset is one perp of metaAndAssetCtxs.
type HLAsset struct {
	Name     string // "BTC", "kPEPE", "xyz:TSLA"
	Dex      string // "" or the builder dex ("xyz")
	Delisted bool
	// OpenInterest is in coins; Mark and Oracle in USD; Funding per hour;
	// DayNtlVlm the 24 h notional volume in USD.
	OpenInterest, Mark, Oracle, Funding, DayNtlVlm float64
}

type hlUniverse struct {
	Name       string `json:"name"`
	IsDelisted bool   `json:"isDelisted"`
}

type hlCtx struct {
	Funding      *string `json:"funding"`
	OpenInterest *string `json:"openInterest"`
	MarkPx       *string `json:"markPx"`
	OraclePx     *string `json:"oraclePx"`
	DayNtlVlm    *string `json:"dayNtlVlm"`
}

// ParseHyperliquidMetaAndAssetCtxs parses a metaAndAssetCtxs answer. An
// asset whose context has a bad number is rejected; a universe and context
// list of different lengths is malformed.
func ParseHyperliquidMetaAndAssetCtxs(b []byte) ([]HLAsset, []Reject, error) {
	const ep = "metaAndAssetCtxs"
	var top []json.RawMessage
	if err := decodeStrict(b, &top); err != nil {
		return nil, nil, malformed(VenueHyperliquid, ep, err)
	}
	if len(top) != 2 {
		return nil, nil, malformed(VenueHyperliquid, ep, fmt.Errorf("%d top-level elements, want [meta, contexts]", len(top)))
	}
	var meta struct {
		Universe []hlUniverse `json:"universe"`
	}
	var ctxs []hlCtx
	if err := json.Unmarshal(top[0], &meta); err != nil {
		return nil, nil, malformed(VenueHyperliquid, ep, fmt.Errorf("meta: %w", err))
	}
	if err := json.Unmarshal(top[1], &ctxs); err != nil {
		return nil, nil, malformed(VenueHyperliquid, ep, fmt.Errorf("contexts: %w", err))
	}
	if len(meta.Universe) != len(ctxs) {
		return nil, nil, malformed(VenueHyperliquid, ep, fmt.Errorf("%d universe entries but %d contexts", len(meta.Universe), len(ctxs)))
	}
	out := make([]HLAsset, 0, len(ctxs))
	var rej []Reject
	for i, u := range meta.Universe {
		a := HLAsset{Name: u.Name, Delisted: u.IsDelisted}
		if j := strings.IndexByte(u.Name, ':'); j > 0 {
			a.Dex = u.Name[:j]
		}
		c := &ctxs[i]
		var errs [5]error
		a.Funding, errs[0] = optNum("funding", c.Funding)
		a.OpenInterest, errs[1] = optNum("openInterest", c.OpenInterest)
		a.Mark, errs[2] = optNum("markPx", c.MarkPx)
		a.Oracle, errs[3] = optNum("oraclePx", c.OraclePx)
		a.DayNtlVlm, errs[4] = optNum("dayNtlVlm", c.DayNtlVlm)
		err := errors.Join(errs[:]...)
		if err == nil && (u.Name == "" || a.OpenInterest < 0 || a.Mark < 0 || a.Oracle < 0 || a.DayNtlVlm < 0) {
			err = fmt.Errorf("%s: negative value or no name", ReasonBadValue)
		}
		if err == nil && !a.Delisted && (c.Funding == nil || c.OpenInterest == nil || c.MarkPx == nil) {
			err = fmt.Errorf("%s: no funding, open interest or mark price", ReasonBadValue)
		}
		if err != nil {
			rej = append(rej, Reject{VenueHyperliquid, u.Name, err.Error()})
			continue
		}
		out = append(out, a)
	}
	return out, rej, nil
}

// HyperliquidInput is what one Hyperliquid poll read (all dexes).
type HyperliquidInput struct {
	ReadNs int64
	// ObservedNs is the answer's Date header; 0 = none (the read time is used).
	ObservedNs int64
	Source     string
	Assets     []HLAsset
}

// BuildHyperliquid turns one poll into a snapshot per perp whose symbol maps.
// Open interest is valued at the mark price; funding is hourly. Assets whose
// coin does not map (spot-like names) are skipped and counted by the caller.
func BuildHyperliquid(in HyperliquidInput) []*schemas.PerpSnapshot {
	obs := in.ObservedNs
	if obs == 0 {
		obs = in.ReadNs
	}
	out := make([]*schemas.PerpSnapshot, 0, len(in.Assets))
	for i := range in.Assets {
		a := &in.Assets[i]
		sym, class, ok := Normalize(VenueHyperliquid, a.Name)
		if !ok {
			continue
		}
		s := &schemas.PerpSnapshot{
			Venue: VenueHyperliquid, VenueSymbol: a.Name, Symbol: sym, AssetClass: class, Dex: a.Dex,
			ObservedNs: obs, ReadNs: in.ReadNs, Source: in.Source, Delisted: a.Delisted,
		}
		if !a.Delisted {
			s.OpenInterest, s.OpenInterestUsd = a.OpenInterest, a.OpenInterest*a.Mark
			s.MarkPrice, s.IndexPrice, s.FundingRate = a.Mark, a.Oracle, a.Funding
			s.FundingIntervalHours, s.FundingIntervalSource = HyperliquidFundingHours, "default"
			s.DayVolumeUsd = a.DayNtlVlm
			// Funding is paid at the top of every hour.
			const hour = int64(3600e9)
			s.NextFundingNs = (obs/hour + 1) * hour
		}
		out = append(out, s)
	}
	return out
}
