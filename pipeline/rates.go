package pipeline

import (
	"cmp"
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/aave"
	"github.com/marketintel/mi/pipeline/sources/nyfed"
	"github.com/marketintel/mi/pipeline/sources/tokenfunds"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/ratesfiles"
	"github.com/marketintel/mi/sinks/ratesview"
)

// RatesView returns the rates view (docs/rates.md) of the lending
// reserves and tokenized funds the sources configuration cfg reads (its
// enabled aave-v3 and tokenfunds entries), carrying the New York Fed's
// notice in operator's name, and its side view on mi.rates.v1 for
// RunConfig.SideViews. Without such entries (or a nil cfg) the view shows
// the defaults, aave.Reserves and tokenfunds.Funds: an API instance that
// reads no source still answers for what the cluster's sources read by
// default.
func RatesView(operator string, cfg *sources.Config) (*ratesview.View, SideView, error) {
	vc := ratesview.Config{Notice: nyfed.Notice(operator), NoticeURL: nyfed.TermsURL}
	reserves, funds := aave.Reserves, tokenfunds.Funds
	if cfg != nil {
		var rs []aave.Reserve
		var fs []tokenfunds.Fund
		seenFunds := false
		for _, sc := range cfg.Sources {
			if sc.Disabled {
				continue
			}
			switch sc.Kind {
			case "aave-v3":
				var c aave.Config
				if err := sc.Decode(&c); err != nil {
					return nil, SideView{}, err
				}
				r, err := aave.ResolveReserves(c.Reserves)
				if err != nil {
					return nil, SideView{}, err
				}
				rs = append(rs, r...)
			case "tokenfunds":
				var c tokenfunds.Config
				if err := sc.Decode(&c); err != nil {
					return nil, SideView{}, err
				}
				f, err := tokenfunds.ResolveFunds(cmp.Or(c.Chain, "ethereum"), c.Funds)
				if err != nil {
					return nil, SideView{}, err
				}
				fs, seenFunds = append(fs, f...), true
			}
		}
		if rs != nil {
			reserves = rs
		}
		if seenFunds {
			funds = fs
		}
	}
	for _, r := range reserves {
		vc.Reserves = append(vc.Reserves, ratesview.Reserve{Protocol: aave.Protocol, Chain: r.Chain, ChainID: r.ChainID,
			Pool: strings.ToLower(r.Pool.Hex()), Asset: strings.ToLower(r.Asset.Hex()), Symbol: r.Symbol})
	}
	for _, f := range funds {
		vc.Funds = append(vc.Funds, ratesview.Fund{Symbol: f.Symbol, Name: f.Name, Issuer: f.Issuer, Chain: f.Chain, Token: strings.ToLower(f.Token.Hex())})
	}
	v := ratesview.New(vc)
	return v, ViewOf(sidetopic.Rates, v.Apply), nil
}

// RatesFilesGroup is the consumer group of the rates Parquet files.
const RatesFilesGroup = "mi-rates-parquet"

// SinkRatesFiles writes mi.rates.v1 into the rates Parquet files under
// dataDir (sinks/ratesfiles, docs/datasets.md) until ctx ends; see
// SinkSide. flush 0 means 30 s.
func SinkRatesFiles(ctx context.Context, brokers []string, dataDir string, flush time.Duration, log *slog.Logger) error {
	return SinkSide(ctx, SideSinkConfig{Brokers: brokers, Group: RatesFilesGroup, Topics: []string{schemas.TopicRates},
		Files: ratesFiles{ratesfiles.New(dataDir)}, FlushInterval: flush, Logger: log})
}

// ratesFiles adapts the rates Parquet writer to SinkSide.
type ratesFiles struct{ *ratesfiles.Writer }

func (f ratesFiles) Add(_ string, value []byte) error { return f.AddValue(value) }
