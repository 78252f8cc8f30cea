package main

import (
	"context"
	"log/slog"

	"github.com/marketintel/mi/pipeline"
	_ "github.com/marketintel/mi/pipeline/sources/aave"       // registers aave-v3
	_ "github.com/marketintel/mi/pipeline/sources/ecb"        // registers ecb-estr
	_ "github.com/marketintel/mi/pipeline/sources/fred"       // registers fred
	_ "github.com/marketintel/mi/pipeline/sources/nyfed"      // registers nyfed
	_ "github.com/marketintel/mi/pipeline/sources/tokenfunds" // registers tokenfunds
	_ "github.com/marketintel/mi/pipeline/sources/treasury"   // registers treasury-curve, treasury-auctions
)

// startRatesFiles writes mi.rates.v1 into the rates Parquet files of
// dataDir until ctx ends; a failure is logged.
func startRatesFiles(ctx context.Context, brokers []string, dataDir string, log *slog.Logger) {
	go func() {
		if err := pipeline.SinkRatesFiles(ctx, brokers, dataDir, 0, log); err != nil && ctx.Err() == nil {
			log.Error("rates Parquet files stopped", "err", err)
		}
	}()
}
