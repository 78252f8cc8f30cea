package pipeline

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources/aave"
	"github.com/marketintel/mi/pipeline/sources/nyfed"
	"github.com/marketintel/mi/pipeline/sources/tokenfunds"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/ratesfiles"
	"github.com/marketintel/mi/sinks/ratesview"
)

// RatesView returns the rates view (docs/rates.md) of the default lending
// reserves (aave.Reserves) and tokenized funds (tokenfunds.Funds), carrying
// the New York Fed's notice in operator's name, and its side view on
// mi.rates.v1 for RunConfig.SideViews.
func RatesView(operator string) (*ratesview.View, SideView) {
	cfg := ratesview.Config{Notice: nyfed.Notice(operator), NoticeURL: nyfed.TermsURL}
	for _, r := range aave.Reserves {
		cfg.Reserves = append(cfg.Reserves, ratesview.Reserve{Protocol: aave.Protocol, Chain: r.Chain, ChainID: r.ChainID,
			Pool: strings.ToLower(r.Pool.Hex()), Asset: strings.ToLower(r.Asset.Hex()), Symbol: r.Symbol})
	}
	for _, f := range tokenfunds.Funds {
		cfg.Funds = append(cfg.Funds, ratesview.Fund{Symbol: f.Symbol, Name: f.Name, Issuer: f.Issuer, Chain: f.Chain, Token: strings.ToLower(f.Token.Hex())})
	}
	v := ratesview.New(cfg)
	return v, ViewOf(sidetopic.Rates, v.Apply)
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
