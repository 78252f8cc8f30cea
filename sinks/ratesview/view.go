// Package ratesview materializes mi.rates.v1 into the answers of the rates
// routes (docs/rates.md): the Treasury curves with overnight rates, the
// DeFi lending spread, the tokenized treasury supply and the Treasury
// auctions. A View applies records in any order and gives the same answers
// for the same set of records: a revision of a past value (the same
// observation read again with other values) is kept beside the first, and
// the latest read wins. Answers are typed structs with JSON tags; the
// route handlers validate parameters, call a View and render. The package
// does no I/O and reads no clock: the time of the question is passed in.
package ratesview

import (
	"bytes"
	"errors"
	"sort"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/schemas"
)

// Errors of the answers, for the handlers' 404s (spec §7).
var (
	// ErrNoData means the view holds nothing the answer could be built
	// from yet.
	ErrNoData = errors.New("no data yet")
	// ErrNoSnapshot means no tokenized treasury supply snapshot exists
	// yet ("no snapshot yet for treasury supply").
	ErrNoSnapshot = errors.New("no snapshot yet for treasury supply")
)

// Reserve is a lending reserve the DeFi spread reports, in answer order.
type Reserve struct {
	Protocol string // "aave-v3"
	Chain    string
	ChainID  int64
	Pool     string // 0x-hex lower case
	Asset    string // 0x-hex lower case
	Symbol   string // "USDC"
}

// Fund is a tokenized fund the supply route reports, in answer order.
type Fund struct {
	Symbol, Name, Issuer, Chain string
	Token                       string // 0x-hex lower case
}

// Config configures a View.
type Config struct {
	// Notice is the notice the New York Fed's terms of use require with
	// SOFR and EFFR (nyfed.Notice with the operator's name); the curve
	// answer carries it.
	Notice string
	// NoticeURL is where those terms are posted (nyfed.TermsURL).
	NoticeURL string
	// Reserves are the lending reserves of the DeFi spread, in order.
	Reserves []Reserve
	// Funds are the tokenized funds, in order.
	Funds []Fund
	// LendingStaleAfter is how old a chain's last successful read may be
	// before the chain is stale; 0 means 15 minutes (three missed polls
	// of five minutes).
	LendingStaleAfter time.Duration
	// FundStaleAfter is how old a fund's last snapshot may be before it is
	// stale; 0 means 3 hours (two missed hourly snapshots).
	FundStaleAfter time.Duration
}

// Default staleness limits.
const (
	DefaultLendingStaleAfter = 15 * time.Minute
	DefaultFundStaleAfter    = 3 * time.Hour
)

// View is the materialized state of mi.rates.v1. It is safe for concurrent
// use: Apply takes a write lock, the answers a read lock.
type View struct {
	cfg Config

	mu        sync.RWMutex
	curves    map[schemas.CurveKind]*dated
	overnight map[schemas.OvernightRateKind]*dated
	lending   map[string]*lendingState // key: protocol|chain|asset
	funds     map[string]*fundState    // key: chain|symbol
	auctions  map[string]*version      // key: cusip|auction date
	faults    map[string]*version      // key: scope
	applied   int

	auctionsDirty bool
	auctionIndex  auctionIndex
}

// New returns an empty view.
func New(cfg Config) *View {
	if cfg.LendingStaleAfter == 0 {
		cfg.LendingStaleAfter = DefaultLendingStaleAfter
	}
	if cfg.FundStaleAfter == 0 {
		cfg.FundStaleAfter = DefaultFundStaleAfter
	}
	return &View{
		cfg:       cfg,
		curves:    map[schemas.CurveKind]*dated{},
		overnight: map[schemas.OvernightRateKind]*dated{},
		lending:   map[string]*lendingState{},
		funds:     map[string]*fundState{},
		auctions:  map[string]*version{},
		faults:    map[string]*version{},
	}
}

// version is one distinct content of an observation: the record first
// read with it, its body bytes and the first time it was read.
type version struct {
	rec   *schemas.RatesRecord
	body  []byte // deterministic encoding of the body message; see enc
	first int64  // earliest read time of this content, Unix ns
}

// enc returns the deterministic encoding of the record's body, computed on
// first use: only versions of curves and rates (compared by content) and
// ties between reads (ordered by content) need it.
func (v *version) enc() []byte {
	if v.body == nil {
		var body proto.Message
		switch b := v.rec.Body.(type) {
		case *schemas.RatesRecord_Curve:
			body = b.Curve
		case *schemas.RatesRecord_Overnight:
			body = b.Overnight
		case *schemas.RatesRecord_Lending:
			body = b.Lending
		case *schemas.RatesRecord_FundSupply:
			body = b.FundSupply
		case *schemas.RatesRecord_Auction:
			body = b.Auction
		case *schemas.RatesRecord_Fault:
			body = b.Fault
		}
		enc, err := marshal.Marshal(body)
		if err != nil {
			panic("BUG: cannot encode a valid record: " + err.Error())
		}
		v.body = append(enc, 0) // never nil, even for an empty body
	}
	return v.body
}

// versions are the distinct contents of one observation (a curve of a
// date, a rate of a date). The latest is the content first read last;
// equal first reads are ordered by body bytes.
type versions struct {
	all    []*version
	latest *version
}

func (vs *versions) add(v *version) {
	for _, old := range vs.all {
		if bytes.Equal(old.enc(), v.enc()) {
			if v.first < old.first {
				old.first, old.rec = v.first, v.rec
			}
			vs.pick()
			return
		}
	}
	vs.all = append(vs.all, v)
	vs.pick()
}

func (vs *versions) pick() {
	vs.latest = nil
	for _, v := range vs.all {
		if vs.latest == nil || v.first > vs.latest.first || (v.first == vs.latest.first && bytes.Compare(v.enc(), vs.latest.enc()) > 0) {
			vs.latest = v
		}
	}
}

// dated holds the versions of one series by date, with the dates sorted.
type dated struct {
	byDate map[string]*versions
	dates  []string
}

func (d *dated) add(date string, v *version) {
	if d.byDate == nil {
		d.byDate = map[string]*versions{}
	}
	vs := d.byDate[date]
	if vs == nil {
		vs = &versions{}
		d.byDate[date] = vs
		i := sort.SearchStrings(d.dates, date)
		d.dates = append(d.dates, "")
		copy(d.dates[i+1:], d.dates[i:])
		d.dates[i] = date
	}
	vs.add(v)
}

// lendingState is a reserve's latest read and when it was last read.
type lendingState struct {
	latest     *version
	lastReadNs int64
}

// fundState is a fund's snapshots by snapshot time (Unix s), kept for
// fundHistory before the newest.
type fundState struct {
	snaps      map[int64]*version
	newest     int64
	lastReadNs int64
}

// fundHistory is how far back a fund's snapshots are kept: the 7-day
// change with its tolerance.
const fundHistory = 8 * 24 * 3600

var marshal = proto.MarshalOptions{Deterministic: true}

// Apply adds one record. It returns an error wrapping
// schemas.ErrInvalidRates for a record that fails schemas.ValidateRates
// (the caller dead-letters it); the view is then unchanged.
func (v *View) Apply(r *schemas.RatesRecord) error {
	if err := schemas.ValidateRates(r); err != nil {
		return err
	}
	ver := &version{rec: r, first: r.ReadTimeNs}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.applied++
	switch b := r.Body.(type) {
	case *schemas.RatesRecord_Curve:
		d := v.curves[b.Curve.Kind]
		if d == nil {
			d = &dated{}
			v.curves[b.Curve.Kind] = d
		}
		d.add(b.Curve.Date, ver)
	case *schemas.RatesRecord_Overnight:
		d := v.overnight[b.Overnight.Kind]
		if d == nil {
			d = &dated{}
			v.overnight[b.Overnight.Kind] = d
		}
		d.add(b.Overnight.Date, ver)
	case *schemas.RatesRecord_Lending:
		l := b.Lending
		k := l.Protocol + "|" + l.Chain + "|" + l.Asset
		s := v.lending[k]
		if s == nil {
			s = &lendingState{}
			v.lending[k] = s
		}
		s.lastReadNs = max(s.lastReadNs, r.ReadTimeNs)
		if s.latest == nil || newerLending(ver, s.latest) {
			s.latest = ver
		}
	case *schemas.RatesRecord_FundSupply:
		f := b.FundSupply
		k := f.Chain + "|" + f.Symbol
		s := v.funds[k]
		if s == nil {
			s = &fundState{snaps: map[int64]*version{}}
			v.funds[k] = s
		}
		s.lastReadNs = max(s.lastReadNs, r.ReadTimeNs)
		if f.SnapshotTime < s.newest-fundHistory {
			return nil
		}
		if old := s.snaps[f.SnapshotTime]; old == nil || earlierSnapshot(ver, old) {
			s.snaps[f.SnapshotTime] = ver
		}
		if f.SnapshotTime > s.newest {
			s.newest = f.SnapshotTime
			for t := range s.snaps {
				if t < s.newest-fundHistory {
					delete(s.snaps, t)
				}
			}
		}
	case *schemas.RatesRecord_Auction:
		k := b.Auction.Cusip + "|" + b.Auction.AuctionDate
		if old := v.auctions[k]; old == nil || newerAuction(ver, old) {
			v.auctions[k] = ver
			v.auctionsDirty = true
		}
	case *schemas.RatesRecord_Fault:
		k := b.Fault.Scope
		if old := v.faults[k]; old == nil || newerRead(ver, old) {
			v.faults[k] = ver
		}
	}
	return nil
}

// Applied returns how many valid records the view has applied.
func (v *View) Applied() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.applied
}

// newerRead orders records by read time, then body bytes.
func newerRead(a, b *version) bool {
	if a.rec.ReadTimeNs != b.rec.ReadTimeNs {
		return a.rec.ReadTimeNs > b.rec.ReadTimeNs
	}
	return bytes.Compare(a.enc(), b.enc()) > 0
}

// newerLending orders reserve reads by block time, block number, then
// read time and bytes.
func newerLending(a, b *version) bool {
	la, lb := a.rec.GetLending(), b.rec.GetLending()
	if la.BlockTime != lb.BlockTime {
		return la.BlockTime > lb.BlockTime
	}
	if la.BlockNumber != lb.BlockNumber {
		return la.BlockNumber > lb.BlockNumber
	}
	return newerRead(a, b)
}

// earlierSnapshot prefers, for one snapshot hour, the read closest to the
// hour's start: the earliest block, then the earliest read, then bytes.
func earlierSnapshot(a, b *version) bool {
	fa, fb := a.rec.GetFundSupply(), b.rec.GetFundSupply()
	if fa.BlockTime != fb.BlockTime {
		return fa.BlockTime < fb.BlockTime
	}
	if fa.BlockNumber != fb.BlockNumber {
		return fa.BlockNumber < fb.BlockNumber
	}
	if a.rec.ReadTimeNs != b.rec.ReadTimeNs {
		return a.rec.ReadTimeNs < b.rec.ReadTimeNs
	}
	return bytes.Compare(a.enc(), b.enc()) < 0
}

// newerAuction orders an auction's records: results over announcements,
// then the later read, then bytes.
func newerAuction(a, b *version) bool {
	sa, sb := a.rec.GetAuction().Status, b.rec.GetAuction().Status
	if sa != sb {
		return sa == schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED
	}
	return newerRead(a, b)
}
