package sec

import (
	"path/filepath"
	"sort"
	"sync"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/operators/fundamentals"
	"github.com/marketintel/mi/operators/insiders"
	pq "github.com/marketintel/mi/sinks/parquet"
)

// Snapshots writes computed answers as Parquet files for quants
// (docs/datasets.md, "SEC snapshots"): one file per dataset, UTC day of
// asOf and symbol, replaced atomically by the day's later computations.
type Snapshots struct {
	Root string
	mu   sync.Mutex
}

// Fundamentals writes the figures and ratios of an answer.
func (s *Snapshots) Fundamentals(a *fundamentals.Intelligence) error {
	rows := FundamentalRows(a)
	path := filepath.Join(datasets.SecFundamentalsDir(s.Root, datasets.Day(a.AsOf), a.Symbol), datasets.DayFileName)
	s.mu.Lock()
	defer s.mu.Unlock()
	return pq.WriteRows(path, rows)
}

// Insiders writes every transaction row of an answer's filings.
func (s *Snapshots) Insiders(a *insiders.Analysis) error {
	rows := InsiderRows(a)
	path := filepath.Join(datasets.SecInsidersDir(s.Root, datasets.Day(a.AsOf), a.Symbol), datasets.DayFileName)
	s.mu.Lock()
	defer s.mu.Unlock()
	return pq.WriteRows(path, rows)
}

// FundamentalRows are the snapshot rows of an answer, sorted by metric.
func FundamentalRows(a *fundamentals.Intelligence) []pq.SecFundamentalRow {
	d := &a.DerivedIntelligence
	base := pq.SecFundamentalRow{AsOf: a.AsOf.UnixMicro(), CIK: a.CIK, CompanyName: a.CompanyName,
		FundamentalSignal: d.FundamentalSignal, SignalScore: d.SignalScore, AlgorithmVersion: d.AlgorithmVersion}
	var rows []pq.SecFundamentalRow
	for name, m := range a.Financials {
		r := base
		r.Metric, r.Value, r.Unit, r.Concept, r.PeriodType = name, m.Value, m.Unit, m.Concept, m.PeriodType
		r.PeriodStart, r.PeriodEnd, r.FY, r.FP = m.PeriodStart.String(), m.PeriodEnd.String(), m.FY, m.FP
		r.Form, r.Filed, r.AccessionNumber, r.Derivation, r.Reason = m.Form, m.Filed.String(), m.AccessionNumber, m.Derivation, m.Reason
		rows = append(rows, r)
	}
	for _, x := range []struct {
		name, unit string
		v          *float64
	}{
		{"revenueGrowthYoYPercent", "percent", d.RevenueGrowthYoYPercent},
		{"earningsGrowthYoYPercent", "percent", d.EarningsGrowthYoYPercent},
		{"operatingMarginPercent", "percent", d.OperatingMarginPercent},
		{"netMarginPercent", "percent", d.NetMarginPercent},
		{"returnOnAssetsPercent", "percent", d.ReturnOnAssetsPercent},
		{"debtToEquity", "ratio", d.DebtToEquity},
		{"cashToDebt", "ratio", d.CashToDebt},
	} {
		r := base
		r.Metric, r.Value, r.Unit, r.Derivation, r.Reason = "derived:"+x.name, x.v, x.unit, "ratio", d.NullReasons[x.name]
		r.PeriodType, r.PeriodEnd, r.FY, r.FP = "duration", d.FiscalPeriodEnd.String(), d.FiscalYear, d.Basis
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Metric < rows[j].Metric })
	return rows
}

// InsiderRows are the snapshot rows of an answer: every row of its
// filings, in the answer's order.
func InsiderRows(a *insiders.Analysis) []pq.SecInsiderRow {
	rows := make([]pq.SecInsiderRow, 0, len(a.AllRows))
	for _, r := range a.AllRows {
		rows = append(rows, pq.SecInsiderRow{AsOf: a.AsOf.UnixMicro(), IssuerCIK: a.CIK, Days: int32(a.Days),
			AccessionNumber: r.AccessionNumber, Form: r.Form, FilingDate: r.FilingDate, TransactionDate: r.Date,
			Insider: r.Insider, InsiderCIK: r.InsiderCIK, Role: r.Role, Code: r.Code, Category: r.Category, TableName: r.Table,
			Security: r.Security, AcquiredDisposed: r.AcquiredDisposed, Shares: r.Shares, PricePerShare: r.PricePerShare,
			ValueUSD: r.ValueUSD, SharesOwnedAfter: r.SharesOwnedAfter, DirectIndirect: r.DirectIndirect, TenB51: r.TenB51,
			TenB51Source: r.TenB51Source, Superseded: r.Superseded, Inconsistent: r.Inconsistent, Signal: a.Signal,
			AlgorithmVersion: a.AlgorithmVersion})
	}
	return rows
}
