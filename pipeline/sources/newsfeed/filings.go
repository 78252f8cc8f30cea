package newsfeed

import (
	"slices"
	"strings"
	"time"

	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/schemas"
)

// FilingsProvider is the provider of filing items read from EDGAR.
const FilingsProvider = "edgar:getcurrent"

// Filing is what the news source needs of one EDGAR filing, from the
// current-filings feed (edgar.CurrentFiling) or a SEC-HEADER
// (edgar.Header).
type Filing struct {
	Accession edgar.Accession
	Form      edgar.Form
	FiledDate string    // YYYY-MM-DD
	Accepted  time.Time // zero when unknown
	Items     []edgar.Item
	Parties   []edgar.Party
	IndexURL  string // as the feed links it; empty: built from the endpoints
}

// FilingOfCurrent converts a filing of the current-filings feed.
func FilingOfCurrent(f edgar.CurrentFiling) Filing {
	return Filing{Accession: f.Accession, Form: f.Form, FiledDate: f.FilingDate, Accepted: f.Accepted, Items: f.Items, Parties: f.Parties, IndexURL: f.IndexURL}
}

// FilingOfHeader converts the SEC-HEADER of a filing.
func FilingOfHeader(h *edgar.Header) Filing {
	return Filing{Accession: h.Accession, Form: h.Form, FiledDate: h.FiledAsOf, Accepted: h.Accepted, Items: h.Items, Parties: h.Parties}
}

// subject returns the party a filing is about: the issuer of an ownership
// form (4, 144), the subject company of a 13D or 13G, else the filer. The
// feed spells roles "Issuer", "Subject", "Filer"; the header "ISSUER",
// "SUBJECT COMPANY", "FILER".
func subject(parties []edgar.Party) (edgar.Party, bool) {
	for _, want := range []string{"ISSUER", "SUBJECT", "FILER"} {
		for _, p := range parties {
			if strings.HasPrefix(strings.ToUpper(p.Role), want) {
				return p, true
			}
		}
	}
	if len(parties) > 0 {
		return parties[0], true
	}
	return edgar.Party{}, false
}

// Reasons a filing is left out of the news (not dead letters: EDGAR lists
// thousands of filings a day, most not news).
const (
	skipUnlisted = "filer has no listed ticker"
	skipForm     = "form not among the news forms"
)

// FilingItem turns a filing into a news item read at fetched (Unix ns), or
// says why it is not news: only the forms of the sec_filing event
// (newsclass.AlertForms, with amendments) of issuers SEC's ticker file
// lists are. A filing EDGAR lists malformed (no accession, no party) is
// refused with a dead-letter reason instead (reject = true).
func FilingItem(f Filing, tickers *edgar.Tickers, ep edgar.Endpoints, fetched int64) (n *schemas.NewsItem, reason string, reject bool) {
	if f.Accession == "" || f.Form.Name == "" {
		return nil, "bad filing: no accession number or form", true
	}
	party, ok := subject(f.Parties)
	if !ok || party.CIK == 0 {
		return nil, "bad filing: no party with a CIK", true
	}
	if !slices.Contains(newsclass.AlertForms, f.Form.Family) {
		return nil, skipForm, false
	}
	tks := tickers.TickersOf(party.CIK)
	if len(tks) == 0 {
		return nil, skipUnlisted, false
	}
	ticker := tks[0]
	company := party.Name
	if company == "" {
		if c, ok := tickers.Lookup(ticker); ok {
			company = c.Name
		}
	}
	published := f.Accepted
	if published.IsZero() {
		d, err := time.ParseInLocation(time.DateOnly, f.FiledDate, edgar.Eastern)
		if err != nil {
			return nil, "bad filing: no acceptance time and filing date " + truncate(f.FiledDate, 32), true
		}
		published = d
	}
	index := f.IndexURL
	if index == "" {
		index = ep.IndexURL(party.CIK, f.Accession)
	}
	canon, err := CanonicalURL(index, ep.WWW)
	if err != nil {
		return nil, ReasonBadLink + ": " + err.Error(), true
	}
	fl := &schemas.NewsFiling{
		Accession: string(f.Accession), Form: f.Form.Name, FormFamily: f.Form.Family, Amendment: f.Form.Amendment,
		Cik: party.CIK.String(), Company: company, Ticker: ticker,
		FilingUrl: ep.FullTextURL(party.CIK, f.Accession), IndexUrl: canon, FiledDate: f.FiledDate, Role: party.Role,
	}
	if !f.Accepted.IsZero() {
		fl.AcceptedNs = f.Accepted.UnixNano()
	}
	var titled []string
	for _, it := range f.Items {
		if it.Number == "" {
			continue
		}
		fl.Items = append(fl.Items, it.Number)
		fl.ItemDescriptions = append(fl.ItemDescriptions, it.Description)
		if it.Number != "9.01" && len(titled) < 3 && it.Description != "" {
			titled = append(titled, it.Description)
		}
	}
	title := company + " (" + ticker + ") files " + f.Form.Name
	if len(titled) > 0 {
		title += ": " + strings.Join(titled, "; ")
	}
	return &schemas.NewsItem{
		Id: FilingID(string(f.Accession)), Kind: schemas.NewsKind_NEWS_KIND_FILING, Provider: FilingsProvider,
		FeedCategory: CategoryFilings, Title: truncate(title, MaxTitleRunes), Url: canon, Source: Hostname(canon),
		PublishedNs: published.UnixNano(), FetchedNs: fetched, Filing: fl,
	}, "", false
}
