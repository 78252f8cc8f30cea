package treasury

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// AuctionResult is what an auctions document holds.
type AuctionResult struct {
	// Auctions sorted by auction date, then CUSIP; one per (CUSIP, auction
	// date) — within a document the one with the latest record date wins.
	Auctions []*schemas.TreasuryAuction
	// Rejected are the records that could not be read.
	Rejected []Rejection
	// Next is the relative link to the next page (Fiscal Data's
	// links.next), "" on the last page.
	Next string
}

// flex is a JSON value read as text: a string as is, a number as written,
// null and the strings "null" and "" as absent.
type flex string

func (f *flex) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*f = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		if s == "null" {
			s = ""
		}
		*f = flex(s)
	case bytes.Equal(b, []byte("true")), bytes.Equal(b, []byte("false")):
		*f = flex(b)
	default:
		if _, err := strconv.ParseFloat(string(b), 64); err != nil {
			return fmt.Errorf("not a string or number: %.40s", b)
		}
		*f = flex(b)
	}
	return nil
}

// security is a marketable security's auction in either publisher's
// spelling, decoded field by field.
type security struct {
	Cusip, SecurityType, SecurityTerm, OriginalSecurityTerm           flex
	Type, Reopening, CMB, TIPS, FloatingRate                          flex
	AnnouncementDate, AuctionDate, IssueDate, MaturityDate            flex
	OfferingAmount                                                    flex
	HighYield, HighDiscountRate, HighInvestmentRate, HighDiscountMarg flex
	PricePer100, BidToCover                                           flex
	CompetitiveAccepted, IndirectAccepted, DirectAccepted             flex
	PrimaryDealerAccepted, TotalTendered, TotalAccepted               flex
	RecordDate, Updated                                               flex
}

// tdSecurity is TreasuryDirect's spelling (TA_WS/securities/*).
type tdSecurity struct {
	Cusip                  flex `json:"cusip"`
	SecurityType           flex `json:"securityType"`
	SecurityTerm           flex `json:"securityTerm"`
	OriginalSecurityTerm   flex `json:"originalSecurityTerm"`
	Type                   flex `json:"type"`
	Reopening              flex `json:"reopening"`
	CMB                    flex `json:"cashManagementBillCMB"`
	TIPS                   flex `json:"tips"`
	FloatingRate           flex `json:"floatingRate"`
	AnnouncementDate       flex `json:"announcementDate"`
	AuctionDate            flex `json:"auctionDate"`
	IssueDate              flex `json:"issueDate"`
	MaturityDate           flex `json:"maturityDate"`
	OfferingAmount         flex `json:"offeringAmount"`
	HighYield              flex `json:"highYield"`
	HighDiscountRate       flex `json:"highDiscountRate"`
	HighInvestmentRate     flex `json:"highInvestmentRate"`
	HighDiscountMargin     flex `json:"highDiscountMargin"`
	PricePer100            flex `json:"pricePer100"`
	BidToCoverRatio        flex `json:"bidToCoverRatio"`
	CompetitiveAccepted    flex `json:"competitiveAccepted"`
	IndirectBidderAccepted flex `json:"indirectBidderAccepted"`
	DirectBidderAccepted   flex `json:"directBidderAccepted"`
	PrimaryDealerAccepted  flex `json:"primaryDealerAccepted"`
	TotalTendered          flex `json:"totalTendered"`
	TotalAccepted          flex `json:"totalAccepted"`
	UpdatedTimestamp       flex `json:"updatedTimestamp"`
}

func (s *tdSecurity) common() security {
	return security{
		Cusip: s.Cusip, SecurityType: s.SecurityType, SecurityTerm: s.SecurityTerm, OriginalSecurityTerm: s.OriginalSecurityTerm,
		Type: s.Type, Reopening: s.Reopening, CMB: s.CMB, TIPS: s.TIPS, FloatingRate: s.FloatingRate,
		AnnouncementDate: s.AnnouncementDate, AuctionDate: s.AuctionDate, IssueDate: s.IssueDate, MaturityDate: s.MaturityDate,
		OfferingAmount: s.OfferingAmount, HighYield: s.HighYield, HighDiscountRate: s.HighDiscountRate,
		HighInvestmentRate: s.HighInvestmentRate, HighDiscountMarg: s.HighDiscountMargin, PricePer100: s.PricePer100,
		BidToCover: s.BidToCoverRatio, CompetitiveAccepted: s.CompetitiveAccepted, IndirectAccepted: s.IndirectBidderAccepted,
		DirectAccepted: s.DirectBidderAccepted, PrimaryDealerAccepted: s.PrimaryDealerAccepted,
		TotalTendered: s.TotalTendered, TotalAccepted: s.TotalAccepted, Updated: s.UpdatedTimestamp,
	}
}

// fdAuction is Fiscal Data's spelling (v1/accounting/od/auctions_query and
// v1/accounting/od/upcoming_auctions).
type fdAuction struct {
	RecordDate             flex `json:"record_date"`
	Cusip                  flex `json:"cusip"`
	SecurityType           flex `json:"security_type"`
	SecurityTerm           flex `json:"security_term"`
	OriginalSecurityTerm   flex `json:"original_security_term"`
	Reopening              flex `json:"reopening"`
	CMB                    flex `json:"cash_management_bill_cmb"`
	TIPS                   flex `json:"inflation_index_security"`
	FloatingRate           flex `json:"floating_rate"`
	AnnouncementDate       flex `json:"announcemt_date"`
	AuctionDate            flex `json:"auction_date"`
	IssueDate              flex `json:"issue_date"`
	MaturityDate           flex `json:"maturity_date"`
	OfferingAmount         flex `json:"offering_amt"`
	HighYield              flex `json:"high_yield"`
	HighDiscountRate       flex `json:"high_discnt_rate"`
	HighInvestmentRate     flex `json:"high_investment_rate"`
	HighDiscountMargin     flex `json:"high_discnt_margin"`
	PricePer100            flex `json:"price_per100"`
	BidToCoverRatio        flex `json:"bid_to_cover_ratio"`
	CompetitiveAccepted    flex `json:"comp_accepted"`
	IndirectBidderAccepted flex `json:"indirect_bidder_accepted"`
	DirectBidderAccepted   flex `json:"direct_bidder_accepted"`
	PrimaryDealerAccepted  flex `json:"primary_dealer_accepted"`
	TotalTendered          flex `json:"total_tendered"`
	TotalAccepted          flex `json:"total_accepted"`
}

func (s *fdAuction) common() security {
	return security{
		Cusip: s.Cusip, SecurityType: s.SecurityType, SecurityTerm: s.SecurityTerm, OriginalSecurityTerm: s.OriginalSecurityTerm,
		Reopening: s.Reopening, CMB: s.CMB, TIPS: s.TIPS, FloatingRate: s.FloatingRate,
		AnnouncementDate: s.AnnouncementDate, AuctionDate: s.AuctionDate, IssueDate: s.IssueDate, MaturityDate: s.MaturityDate,
		OfferingAmount: s.OfferingAmount, HighYield: s.HighYield, HighDiscountRate: s.HighDiscountRate,
		HighInvestmentRate: s.HighInvestmentRate, HighDiscountMarg: s.HighDiscountMargin, PricePer100: s.PricePer100,
		BidToCover: s.BidToCoverRatio, CompetitiveAccepted: s.CompetitiveAccepted, IndirectAccepted: s.IndirectBidderAccepted,
		DirectAccepted: s.DirectBidderAccepted, PrimaryDealerAccepted: s.PrimaryDealerAccepted,
		TotalTendered: s.TotalTendered, TotalAccepted: s.TotalAccepted, RecordDate: s.RecordDate,
	}
}

// ParseSecurities reads TreasuryDirect's securities API
// (www.treasurydirect.gov/TA_WS/securities/auctioned, /announced, /upcoming
// and /search with format=json): a JSON array of securities whose values
// are strings, "" when empty. A security with a high yield, discount rate,
// discount margin or bid-to-cover ratio has results (AUCTIONED); one
// without is ANNOUNCED.
func ParseSecurities(b []byte) (AuctionResult, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return AuctionResult{}, malformed("malformed json", "%v", err)
	}
	var res AuctionResult
	keep := map[string]*schemas.TreasuryAuction{}
	for _, raw := range raws {
		var s tdSecurity
		if err := json.Unmarshal(raw, &s); err != nil {
			res.Rejected = append(res.Rejected, Rejection{Raw: raw, Reason: malformed("malformed json", "%v", err).Error()})
			continue
		}
		a, err := auctionOf(s.common())
		if err != nil {
			res.Rejected = append(res.Rejected, Rejection{Raw: raw, Reason: err.Error()})
			continue
		}
		keepLatest(keep, a)
	}
	res.Auctions = sortedAuctions(keep)
	return res, nil
}

// ParseFiscalData reads a Fiscal Data auctions dataset
// (api.fiscaldata.treasury.gov/services/api/fiscal_service/v1/accounting/od/auctions_query,
// the results, or .../upcoming_auctions, the announcements): an object
// {data:[...], meta, links} whose values are strings, "null" when empty.
// upcoming_auctions keeps past snapshots (record_date); of the rows of one
// auction the latest snapshot is kept.
func ParseFiscalData(b []byte) (AuctionResult, error) {
	var doc struct {
		Data  []json.RawMessage `json:"data"`
		Links struct {
			Next *string `json:"next"`
		} `json:"links"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return AuctionResult{}, malformed("malformed json", "%v", err)
	}
	if doc.Data == nil {
		return AuctionResult{}, malformed("malformed json", "no data array")
	}
	var res AuctionResult
	if doc.Links.Next != nil {
		res.Next = *doc.Links.Next
	}
	keep := map[string]*schemas.TreasuryAuction{}
	for _, raw := range doc.Data {
		var s fdAuction
		if err := json.Unmarshal(raw, &s); err != nil {
			res.Rejected = append(res.Rejected, Rejection{Raw: raw, Reason: malformed("malformed json", "%v", err).Error()})
			continue
		}
		a, err := auctionOf(s.common())
		if err == nil && s.RecordDate != "" {
			if a.RecordDate, err = isoDate(string(s.RecordDate)); err != nil {
				err = fmt.Errorf("%w (record_date)", err)
			}
		}
		if err != nil {
			res.Rejected = append(res.Rejected, Rejection{Raw: raw, Reason: err.Error()})
			continue
		}
		keepLatest(keep, a)
	}
	res.Auctions = sortedAuctions(keep)
	return res, nil
}

func keepLatest(keep map[string]*schemas.TreasuryAuction, a *schemas.TreasuryAuction) {
	k := a.Cusip + "|" + a.AuctionDate
	if old, ok := keep[k]; ok && old.RecordDate > a.RecordDate {
		return
	}
	keep[k] = a
}

func sortedAuctions(m map[string]*schemas.TreasuryAuction) []*schemas.TreasuryAuction {
	out := make([]*schemas.TreasuryAuction, 0, len(m))
	for _, a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].AuctionDate != out[j].AuctionDate {
			return out[i].AuctionDate < out[j].AuctionDate
		}
		return out[i].Cusip < out[j].Cusip
	})
	return out
}

// auctionOf converts a security; it fails on a missing CUSIP, type, term
// or auction date, or on a figure that is not a number.
func auctionOf(s security) (*schemas.TreasuryAuction, error) {
	a := &schemas.TreasuryAuction{
		Cusip:                strings.ToUpper(string(s.Cusip)),
		SecurityType:         string(s.SecurityType),
		SecurityTerm:         string(s.SecurityTerm),
		OriginalSecurityTerm: string(s.OriginalSecurityTerm),
		Reopening:            yes(s.Reopening),
		Updated:              string(s.Updated),
	}
	if len(a.Cusip) != 9 || a.SecurityType == "" || a.SecurityTerm == "" {
		return nil, malformed("bad security", "cusip %q, type %q, term %q", s.Cusip, s.SecurityType, s.SecurityTerm)
	}
	switch {
	case yes(s.CMB) || strings.EqualFold(string(s.Type), "CMB"):
		a.Kind = "CMB"
	case yes(s.TIPS) || strings.EqualFold(string(s.Type), "TIPS"):
		a.Kind = "TIPS"
	case yes(s.FloatingRate) || strings.EqualFold(string(s.Type), "FRN"):
		a.Kind = "FRN"
	default:
		a.Kind = a.SecurityType
	}
	var err error
	date := func(f flex, name string, required bool) string {
		if err != nil || (f == "" && !required) {
			return ""
		}
		var d string
		if d, err = isoDate(string(f)); err != nil {
			err = fmt.Errorf("%w (%s)", err, name)
		}
		return d
	}
	a.AuctionDate = date(s.AuctionDate, "auction date", true)
	a.AnnouncementDate = date(s.AnnouncementDate, "announcement date", false)
	a.IssueDate = date(s.IssueDate, "issue date", false)
	a.MaturityDate = date(s.MaturityDate, "maturity date", false)
	rate := func(f flex, name string) *float64 {
		if err != nil || f == "" {
			return nil
		}
		v, e := strconv.ParseFloat(string(f), 64)
		if e != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
			err = malformed("bad rate", "%s %q", name, f)
			return nil
		}
		return &v
	}
	a.HighYield = rate(s.HighYield, "high yield")
	a.HighDiscountRate = rate(s.HighDiscountRate, "high discount rate")
	a.HighInvestmentRate = rate(s.HighInvestmentRate, "high investment rate")
	a.HighDiscountMargin = rate(s.HighDiscountMarg, "high discount margin")
	a.PricePer_100 = rate(s.PricePer100, "price per 100")
	a.BidToCover = rate(s.BidToCover, "bid-to-cover ratio")
	amount := func(f flex, name string) *int64 {
		if err != nil || f == "" {
			return nil
		}
		v, e := parseAmount(string(f))
		if e != nil {
			err = malformed("bad amount", "%s %q", name, f)
			return nil
		}
		return &v
	}
	a.OfferingAmount = amount(s.OfferingAmount, "offering amount")
	a.CompetitiveAccepted = amount(s.CompetitiveAccepted, "competitive accepted")
	a.IndirectAccepted = amount(s.IndirectAccepted, "indirect bidder accepted")
	a.DirectAccepted = amount(s.DirectAccepted, "direct bidder accepted")
	a.PrimaryDealerAccepted = amount(s.PrimaryDealerAccepted, "primary dealer accepted")
	a.TotalTendered = amount(s.TotalTendered, "total tendered")
	a.TotalAccepted = amount(s.TotalAccepted, "total accepted")
	if err != nil {
		return nil, err
	}
	a.Status = schemas.AuctionStatus_AUCTION_STATUS_ANNOUNCED
	if a.HighYield != nil || a.HighDiscountRate != nil || a.HighDiscountMargin != nil || a.BidToCover != nil {
		a.Status = schemas.AuctionStatus_AUCTION_STATUS_AUCTIONED
	}
	return a, nil
}

func yes(f flex) bool { return strings.EqualFold(string(f), "Yes") || f == "true" }

// parseAmount reads a whole-dollar amount written as an integer or with a
// zero fraction ("78680000000.000000"); it must be in 0..1e15.
func parseAmount(s string) (int64, error) {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		if strings.Trim(s[i+1:], "0") != "" {
			return 0, fmt.Errorf("fraction in %q", s)
		}
		s = s[:i]
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > 1e15 {
		return 0, fmt.Errorf("bad amount %q", s)
	}
	return v, nil
}
