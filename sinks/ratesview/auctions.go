package ratesview

import (
	"sort"
	"time"

	"github.com/marketintel/mi/operators/rates"
	"github.com/marketintel/mi/operators/uscal"
	"github.com/marketintel/mi/schemas"
)

// Auction days (spec §8).
const (
	DefaultAuctionDays = 14
	MinAuctionDays     = 1
	MaxAuctionDays     = 60
)

// AuctionsAnswer is the answer of /api/v1/rates/auctions.
type AuctionsAnswer struct {
	AsOf string `json:"asOf"`
	// DataAsOf is the date the window ends on: the newest auction date
	// with results (not after the question's date), or the question's date
	// before any result.
	DataAsOf string `json:"dataAsOf"`
	Days     int    `json:"days"`
	// From is the first date of the window: DataAsOf − Days + 1.
	From string `json:"from"`
	// Recent are the auctions dated From..DataAsOf, newest first, with
	// their results when published (status AUCTIONED) or as announced.
	Recent []AuctionFigure `json:"recent"`
	// Announced are the auctions dated after DataAsOf, up to Days later,
	// soonest first.
	Announced []AuctionFigure `json:"announced"`
}

// AuctionFigure is one auction.
type AuctionFigure struct {
	Cusip        string `json:"cusip"`
	SecurityType string `json:"securityType"`
	SecurityTerm string `json:"securityTerm"`
	// Kind is Bill, CMB, Note, Bond, TIPS or FRN; Series the key of "the
	// same security" (operators/rates.SeriesKey), e.g. "Note 10-Year".
	Kind             string `json:"kind"`
	Series           string `json:"series"`
	Reopening        bool   `json:"reopening"`
	Status           string `json:"status"` // AUCTIONED or ANNOUNCED
	AnnouncementDate string `json:"announcementDate,omitempty"`
	AuctionDate      string `json:"auctionDate"`
	IssueDate        string `json:"issueDate,omitempty"`
	MaturityDate     string `json:"maturityDate,omitempty"`
	// OfferingAmount in US dollars.
	OfferingAmount *int64 `json:"offeringAmount"`
	// Results: high yield (notes, bonds, TIPS), high discount and
	// investment rate (bills), high discount margin (FRNs), percent.
	HighYield          *float64 `json:"highYield"`
	HighDiscountRate   *float64 `json:"highDiscountRate"`
	HighInvestmentRate *float64 `json:"highInvestmentRate"`
	HighDiscountMargin *float64 `json:"highDiscountMargin"`
	PricePer100        *float64 `json:"pricePer100"`
	BidToCover         *float64 `json:"bidToCover"`
	// Shares of the competitive accepted amount, percent.
	IndirectSharePercent      *float64 `json:"indirectSharePercent"`
	DirectSharePercent        *float64 `json:"directSharePercent"`
	PrimaryDealerSharePercent *float64 `json:"primaryDealerSharePercent"`
	CompetitiveAccepted       *int64   `json:"competitiveAccepted"`
	// Previous is the latest earlier auction of the same series with
	// results; null when none is held.
	Previous *AuctionFigure `json:"previous,omitempty"`
	Source   *Source        `json:"source,omitempty"`
}

// auctionIndex orders the auctions for the answers.
type auctionIndex struct {
	byDate   []*version            // by auction date, then CUSIP
	bySeries map[string][]*version // results only, by auction date
	lastDate string                // newest auction date with results
}

func seriesOf(a *schemas.TreasuryAuction) string {
	return rates.SeriesKey(a.Kind, a.SecurityType, a.SecurityTerm, a.OriginalSecurityTerm)
}

func (v *View) rebuildAuctionIndex() {
	ix := auctionIndex{bySeries: map[string][]*version{}}
	for _, ver := range v.auctions {
		ix.byDate = append(ix.byDate, ver)
	}
	sort.Slice(ix.byDate, func(i, j int) bool {
		a, b := ix.byDate[i].rec.GetAuction(), ix.byDate[j].rec.GetAuction()
		if a.AuctionDate != b.AuctionDate {
			return a.AuctionDate < b.AuctionDate
		}
		return a.Cusip < b.Cusip
	})
	for _, ver := range ix.byDate {
		a := ver.rec.GetAuction()
		if a.Status == schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED {
			k := seriesOf(a)
			ix.bySeries[k] = append(ix.bySeries[k], ver)
			ix.lastDate = a.AuctionDate
		}
	}
	v.auctionIndex = ix
	v.auctionsDirty = false
}

// Auctions answers /api/v1/rates/auctions?days= as of now; days must be
// within MinAuctionDays..MaxAuctionDays (the handler validates it). It
// fails with ErrNoData when no auction is held.
func (v *View) Auctions(now time.Time, days int) (*AuctionsAnswer, error) {
	if days < MinAuctionDays || days > MaxAuctionDays {
		panic("BUG: auction days out of range")
	}
	v.mu.RLock()
	if v.auctionsDirty {
		v.mu.RUnlock()
		v.mu.Lock()
		if v.auctionsDirty {
			v.rebuildAuctionIndex()
		}
		v.mu.Unlock()
		v.mu.RLock()
	}
	defer v.mu.RUnlock()
	ix := &v.auctionIndex
	if len(ix.byDate) == 0 {
		return nil, ErrNoData
	}
	today := uscal.DateOf(now.UTC())
	asOf := today
	if ix.lastDate != "" {
		if d, _ := uscal.ParseDate(ix.lastDate); d < today {
			asOf = d
		}
	}
	from, until := asOf.AddDays(-days+1).String(), asOf.AddDays(days).String()
	a := &AuctionsAnswer{AsOf: timestamp(now.UnixNano()), DataAsOf: asOf.String(), Days: days, From: from,
		Recent: []AuctionFigure{}, Announced: []AuctionFigure{}}
	asOfS := asOf.String()
	lo := sort.Search(len(ix.byDate), func(i int) bool { return ix.byDate[i].rec.GetAuction().AuctionDate >= from })
	for i := lo; i < len(ix.byDate); i++ {
		ver := ix.byDate[i]
		au := ver.rec.GetAuction()
		if au.AuctionDate > until {
			break
		}
		f := v.auctionFigure(ver, true)
		if au.AuctionDate <= asOfS {
			a.Recent = append(a.Recent, f)
		} else {
			a.Announced = append(a.Announced, f)
		}
	}
	for i, j := 0, len(a.Recent)-1; i < j; i, j = i+1, j-1 {
		a.Recent[i], a.Recent[j] = a.Recent[j], a.Recent[i]
	}
	return a, nil
}

func (v *View) auctionFigure(ver *version, withPrevious bool) AuctionFigure {
	au := ver.rec.GetAuction()
	status := "ANNOUNCED"
	if au.Status == schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED {
		status = "AUCTIONED"
	}
	f := AuctionFigure{
		Cusip: au.Cusip, SecurityType: au.SecurityType, SecurityTerm: au.SecurityTerm, Kind: au.Kind, Series: seriesOf(au),
		Reopening: au.Reopening, Status: status, AnnouncementDate: au.AnnouncementDate, AuctionDate: au.AuctionDate,
		IssueDate: au.IssueDate, MaturityDate: au.MaturityDate, OfferingAmount: au.OfferingAmount,
		HighYield: opt(au.HighYield), HighDiscountRate: opt(au.HighDiscountRate), HighInvestmentRate: opt(au.HighInvestmentRate),
		HighDiscountMargin: opt(au.HighDiscountMargin), PricePer100: opt(au.PricePer_100), BidToCover: opt(au.BidToCover),
		CompetitiveAccepted: au.CompetitiveAccepted,
	}
	share := func(part *int64) *float64 {
		if part == nil || au.CompetitiveAccepted == nil {
			return nil
		}
		s, ok := rates.SharePercent(*part, *au.CompetitiveAccepted)
		if !ok {
			return nil
		}
		return &s
	}
	f.IndirectSharePercent = share(au.IndirectAccepted)
	f.DirectSharePercent = share(au.DirectAccepted)
	f.PrimaryDealerSharePercent = share(au.PrimaryDealerAccepted)
	if withPrevious {
		src := sourceOf(ver)
		src.ReadAt = timestamp(ver.rec.ReadTimeNs)
		f.Source = &src
		series := v.auctionIndex.bySeries[f.Series]
		i := sort.Search(len(series), func(i int) bool { return series[i].rec.GetAuction().AuctionDate >= au.AuctionDate })
		if i > 0 {
			p := v.auctionFigure(series[i-1], false)
			f.Previous = &p
		}
	}
	return f
}
