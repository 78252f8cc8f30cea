// Package ratesfiles writes the records of mi.rates.v1 as the Parquet
// files of the rates datasets (datasets.KindRates, docs/datasets.md): one
// file per dataset and date, rewritten atomically whenever rows of its
// date arrive. Rows are deduplicated by their natural key, keeping the
// earliest read, and sorted, so a file is a function of the set of records
// written: replaying a topic (at least once) gives the same bytes.
package ratesfiles

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/operators/rates"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/parquet"
)

// Writer buffers rows and writes them on Flush. It is not safe for
// concurrent use.
type Writer struct {
	root      string
	curves    table[CurveRow]
	overnight table[OvernightRow]
	lending   table[LendingRow]
	funds     table[FundSupplyRow]
	auctions  table[AuctionRow]
}

// New returns a writer of the rates files under root (the data directory).
func New(root string) *Writer {
	return &Writer{
		root: root,
		curves: table[CurveRow]{dataset: datasets.RatesCurves,
			key:  func(r *CurveRow) string { return r.Curve + "|" + r.Version + "|" + r.Tenor },
			read: func(r *CurveRow) int64 { return r.ReadAt },
			cmp: func(a, b *CurveRow) int {
				return cmp.Or(cmp.Compare(a.Curve, b.Curve), cmp.Compare(a.ReadAt, b.ReadAt), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Months, b.Months))
			}},
		overnight: table[OvernightRow]{dataset: datasets.RatesOvernight,
			key:  func(r *OvernightRow) string { return r.Rate + "|" + r.Version },
			read: func(r *OvernightRow) int64 { return r.ReadAt },
			cmp: func(a, b *OvernightRow) int {
				return cmp.Or(cmp.Compare(a.Rate, b.Rate), cmp.Compare(a.ReadAt, b.ReadAt), cmp.Compare(a.Version, b.Version))
			}},
		lending: table[LendingRow]{dataset: datasets.RatesLending,
			key: func(r *LendingRow) string {
				return fmt.Sprintf("%s|%s|%s|%d", r.Protocol, r.Chain, r.Asset, r.BlockNumber)
			},
			read: func(r *LendingRow) int64 { return r.ReadAt },
			cmp: func(a, b *LendingRow) int {
				return cmp.Or(cmp.Compare(a.BlockTime, b.BlockTime), cmp.Compare(a.Chain, b.Chain), cmp.Compare(a.Asset, b.Asset), cmp.Compare(a.BlockNumber, b.BlockNumber))
			}},
		funds: table[FundSupplyRow]{dataset: datasets.RatesFundSupply,
			key: func(r *FundSupplyRow) string {
				return fmt.Sprintf("%s|%s|%d|%d", r.Chain, r.Symbol, r.SnapshotTime, r.BlockNumber)
			},
			read: func(r *FundSupplyRow) int64 { return r.ReadAt },
			cmp: func(a, b *FundSupplyRow) int {
				return cmp.Or(cmp.Compare(a.SnapshotTime, b.SnapshotTime), cmp.Compare(a.Chain, b.Chain), cmp.Compare(a.Symbol, b.Symbol), cmp.Compare(a.BlockNumber, b.BlockNumber))
			}},
		auctions: table[AuctionRow]{dataset: datasets.RatesAuctions,
			key:  func(r *AuctionRow) string { return r.Cusip + "|" + r.Version },
			read: func(r *AuctionRow) int64 { return r.ReadAt },
			cmp: func(a, b *AuctionRow) int {
				return cmp.Or(cmp.Compare(a.Cusip, b.Cusip), cmp.Compare(a.ReadAt, b.ReadAt), cmp.Compare(a.Version, b.Version))
			}},
	}
}

// Add buffers the rows of one record. Faults are not written. A record
// that fails schemas.ValidateRates is refused with its error.
func (w *Writer) Add(r *schemas.RatesRecord) error {
	if err := schemas.ValidateRates(r); err != nil {
		return err
	}
	readAt := r.ReadTimeNs / 1e3
	switch b := r.Body.(type) {
	case *schemas.RatesRecord_Curve:
		c := b.Curve
		ver := version(c)
		for _, p := range c.Points {
			t := schemas.Tenors[schemas.TenorIndex(p.Tenor)]
			w.curves.add(c.Date, CurveRow{Curve: schemas.CurveKindName(c.Kind), Tenor: t.Name, Months: t.Months, YieldPercent: p.Percent,
				Version: ver, ReadAt: readAt, Source: r.Source, Publisher: r.Publisher, URL: r.Url})
		}
	case *schemas.RatesRecord_Overnight:
		o := b.Overnight
		w.overnight.add(o.Date, OvernightRow{Rate: schemas.OvernightRateName(o.Kind), Percent: o.Percent,
			Percentile1: o.Percentile_1, Percentile25: o.Percentile_25, Percentile75: o.Percentile_75, Percentile99: o.Percentile_99,
			Volume: o.Volume, TargetFrom: o.TargetFrom, TargetTo: o.TargetTo, RevisionIndicator: o.RevisionIndicator,
			Version: version(o), ReadAt: readAt, Source: r.Source, Publisher: r.Publisher, URL: r.Url})
	case *schemas.RatesRecord_Lending:
		l := b.Lending
		supply, _ := rates.RayToAPRPercent(l.LiquidityRateRay)
		borrow, _ := rates.RayToAPRPercent(l.VariableBorrowRateRay)
		w.lending.add(datasets.Day(unix(l.BlockTime)), LendingRow{BlockTime: l.BlockTime * 1e6, Protocol: l.Protocol, Chain: l.Chain, ChainID: l.ChainId,
			BlockNumber: int64(l.BlockNumber), Pool: l.Pool, Asset: l.Asset, AssetSymbol: l.AssetSymbol,
			SupplyAPRPercent: supply, SupplyAPYPercent: rates.APYPercent(supply), BorrowAPRPercent: borrow, BorrowAPYPercent: rates.APYPercent(borrow),
			LiquidityRateRay: l.LiquidityRateRay, VariableBorrowRateRay: l.VariableBorrowRateRay, LiquidityIndexRay: l.LiquidityIndexRay,
			VariableBorrowIndexRay: l.VariableBorrowIndexRay, ReserveUpdatedAt: l.LastUpdateTime * 1e6, Active: l.Active, Frozen: l.Frozen, Paused: l.Paused,
			ReadAt: readAt, Source: r.Source, Publisher: r.Publisher, URL: r.Url})
	case *schemas.RatesRecord_FundSupply:
		f := b.FundSupply
		supply, _ := rates.TokenAmount(f.TotalSupplyRaw, f.Decimals)
		w.funds.add(datasets.Day(unix(f.SnapshotTime)), FundSupplyRow{SnapshotTime: f.SnapshotTime * 1e6, Chain: f.Chain, Symbol: f.Symbol, Token: f.Token,
			Supply: supply, TotalSupplyRaw: f.TotalSupplyRaw, Decimals: int64(f.Decimals), BlockNumber: int64(f.BlockNumber), BlockTime: f.BlockTime * 1e6,
			ReadAt: readAt, Source: r.Source, Publisher: r.Publisher, URL: r.Url})
	case *schemas.RatesRecord_Auction:
		a := b.Auction
		status := "ANNOUNCED"
		if a.Status == schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED {
			status = "AUCTIONED"
		}
		w.auctions.add(a.AuctionDate, AuctionRow{Cusip: a.Cusip, SecurityType: a.SecurityType, SecurityTerm: a.SecurityTerm,
			OriginalSecurityTerm: a.OriginalSecurityTerm, Kind: a.Kind, Series: rates.SeriesKey(a.Kind, a.SecurityType, a.SecurityTerm, a.OriginalSecurityTerm),
			Reopening: a.Reopening, Status: status, AnnouncementDate: a.AnnouncementDate, IssueDate: a.IssueDate, MaturityDate: a.MaturityDate,
			OfferingAmount: a.OfferingAmount, HighYield: a.HighYield, HighDiscountRate: a.HighDiscountRate, HighInvestmentRate: a.HighInvestmentRate,
			HighDiscountMargin: a.HighDiscountMargin, PricePer100: a.PricePer_100, BidToCover: a.BidToCover,
			CompetitiveAccepted: a.CompetitiveAccepted, IndirectAccepted: a.IndirectAccepted, DirectAccepted: a.DirectAccepted,
			PrimaryDealerAccepted: a.PrimaryDealerAccepted, TotalTendered: a.TotalTendered, TotalAccepted: a.TotalAccepted,
			RecordDate: a.RecordDate, Version: version(a), ReadAt: readAt, Source: r.Source, Publisher: r.Publisher, URL: r.Url})
	}
	return nil
}

// AddValue decodes a record value of mi.rates.v1 and adds it: the
// pipeline's side sink (pipeline.SinkSide) writes through it.
func (w *Writer) AddValue(value []byte) error {
	var r schemas.RatesRecord
	if err := proto.Unmarshal(value, &r); err != nil {
		return fmt.Errorf("cannot decode a rates record: %w", err)
	}
	return w.Add(&r)
}

// Pending returns the number of buffered rows.
func (w *Writer) Pending() int {
	return w.curves.n + w.overnight.n + w.lending.n + w.funds.n + w.auctions.n
}

// Flush merges the buffered rows into their files. On an error the rows
// not written stay buffered for the next Flush.
func (w *Writer) Flush() error {
	return errors.Join(w.curves.flush(w.root), w.overnight.flush(w.root), w.lending.flush(w.root), w.funds.flush(w.root), w.auctions.flush(w.root))
}

var deterministic = proto.MarshalOptions{Deterministic: true}

// version is the content hash of a message: 16 hex digits of SHA-256 over
// its deterministic encoding.
func version(m proto.Message) string {
	b, err := deterministic.Marshal(m)
	if err != nil {
		panic("BUG: cannot encode a valid record: " + err.Error())
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// table buffers the rows of one dataset by date.
type table[R any] struct {
	dataset string
	key     func(*R) string
	read    func(*R) int64
	cmp     func(a, b *R) int
	pending map[string][]R
	n       int
}

func (t *table[R]) add(day string, r R) {
	if t.pending == nil {
		t.pending = map[string][]R{}
	}
	t.pending[day] = append(t.pending[day], r)
	t.n++
}

// flush merges each date's rows with its file: deduplicated by key
// (earliest read kept), sorted, written to a temporary name and renamed.
func (t *table[R]) flush(root string) error {
	days := make([]string, 0, len(t.pending))
	for d := range t.pending {
		days = append(days, d)
	}
	slices.Sort(days)
	var errs []error
	for _, day := range days {
		rows := t.pending[day]
		path := datasets.RatesFile(root, t.dataset, day)
		old, err := parquet.ReadRows[R](path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("cannot merge %s: %w", path, err))
			continue
		}
		merged := t.merge(append(old, rows...))
		if err := parquet.WriteRows(path, merged); err != nil {
			errs = append(errs, err)
			continue
		}
		t.n -= len(rows)
		delete(t.pending, day)
	}
	return errors.Join(errs...)
}

// merge keeps one row per key, the earliest read, and sorts.
func (t *table[R]) merge(rows []R) []R {
	best := make(map[string]int, len(rows))
	out := rows[:0:0]
	for i := range rows {
		k := t.key(&rows[i])
		j, ok := best[k]
		if !ok {
			best[k] = len(out)
			out = append(out, rows[i])
			continue
		}
		if t.read(&rows[i]) < t.read(&out[j]) {
			out[j] = rows[i]
		}
	}
	slices.SortFunc(out, func(a, b R) int { return t.cmp(&a, &b) })
	return out
}

func unix(s int64) time.Time { return time.Unix(s, 0) }
