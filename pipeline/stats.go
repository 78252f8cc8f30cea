package pipeline

import "github.com/marketintel/mi/pipeline/stats"

// The ingestion stats live in package pipeline/stats, which the API tier
// imports without the broker code; these names keep the pipeline's callers
// unchanged.
type (
	Stats          = stats.Stats
	SourceStats    = stats.SourceStats
	OperatorCounts = stats.OperatorCounts
)

// NewStats returns empty stats.
func NewStats() *Stats { return stats.New() }

// Counts implements stats.OperatorSource.
func (p *ProcessStats) Counts() OperatorCounts {
	return OperatorCounts{
		Trades: p.Trades.Load(), Gaps: p.Gaps.Load(), Candles: p.Candles.Load(), Documents: p.Documents.Load(), SignalChanges: p.SignalChanges.Load(), Rejected: p.Rejected.Load(),
		Transactions: p.Transactions.Load(), Aborts: p.Aborts.Load(), Restores: p.Restores.Load(),
	}
}
