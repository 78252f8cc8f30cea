package edgar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Client reads EDGAR. It is safe for concurrent use; every Client of the
// process shares the rate limit of its hosts.
type Client struct {
	cfg Config
	f   *fetcher

	mu        sync.Mutex
	tickers   *Tickers
	tickersAt time.Time // FetchedAt of the body tickers was parsed from
}

// Source says where and when a document was read.
type Source struct {
	URL       string    `json:"url"`
	FetchedAt time.Time `json:"fetchedAt"`
	// Stale is true when EDGAR could not be reached and the document is
	// an older cached copy.
	Stale bool `json:"stale,omitempty"`
}

func sourceOf(r Response) Source { return Source{URL: r.URL, FetchedAt: r.FetchedAt, Stale: r.Stale} }

// New returns a client; it does no I/O.
func New(cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	f, err := newFetcher(cfg)
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, f: f}, nil
}

// Endpoints returns the hosts the client reads.
func (c *Client) Endpoints() Endpoints { return c.cfg.Endpoints }

// Status returns the client's freshness and traffic counters.
func (c *Client) Status() Status { return c.f.status() }

// Get returns the body of any EDGAR URL with the Archives TTL, through the
// client's cache, rate limit and retries.
func (c *Client) Get(ctx context.Context, rawURL string) ([]byte, Source, error) {
	r, err := c.f.get(ctx, rawURL, time.Duration(c.cfg.TTL.Archives))
	return r.Body, sourceOf(r), err
}

// Tickers returns EDGAR's ticker map (company_tickers.json, with the
// exchanges of company_tickers_exchange.json when that file can be read).
func (c *Client) Tickers(ctx context.Context) (*Tickers, error) {
	ttl := time.Duration(c.cfg.TTL.Tickers)
	c.mu.Lock()
	if c.tickers != nil && c.f.now().Sub(c.tickersAt) < ttl {
		t := c.tickers
		c.mu.Unlock()
		return t, nil
	}
	c.mu.Unlock()
	r, err := c.f.get(ctx, c.cfg.TickersURL(), ttl)
	if err != nil {
		return nil, fmt.Errorf("cannot read EDGAR's ticker map: %w", err)
	}
	c.mu.Lock()
	if c.tickers != nil && r.FetchedAt.Equal(c.tickersAt) {
		t := c.tickers
		c.mu.Unlock()
		return t, nil
	}
	c.mu.Unlock()
	t, err := ParseTickers(r.Body)
	if err != nil {
		return nil, err
	}
	// The exchange file adds exchanges; without it tickers still resolve.
	if xr, err := c.f.get(ctx, c.cfg.TickersExchangeURL(), ttl); err == nil {
		if x, err := ParseTickersExchange(xr.Body); err == nil {
			t = t.Merge(x)
		} else {
			c.cfg.Logger.Warn("EDGAR company_tickers_exchange.json unreadable; tickers have no exchange", "err", err)
		}
	}
	c.mu.Lock()
	c.tickers, c.tickersAt = t, r.FetchedAt
	c.mu.Unlock()
	return t, nil
}

// Company resolves a ticker to its registrant. The error wraps
// ErrUnknownTicker when EDGAR lists no such ticker.
func (c *Client) Company(ctx context.Context, ticker string) (Company, error) {
	n, ok := NormalizeTicker(ticker)
	if !ok {
		return Company{}, fmt.Errorf("cannot resolve %q: not a ticker (1 to 12 letters, digits or '-'): %w", ticker, ErrUnknownTicker)
	}
	t, err := c.Tickers(ctx)
	if err != nil {
		return Company{}, err
	}
	co, ok := t.Lookup(n)
	if !ok {
		return Company{}, fmt.Errorf("cannot resolve %s: %w: EDGAR's company_tickers.json lists no registrant with this ticker", n, ErrUnknownTicker)
	}
	return co, nil
}

// Submissions returns a registrant's submissions JSON: entity data and
// filings.recent.
func (c *Client) Submissions(ctx context.Context, cik CIK) (*Submissions, Source, error) {
	r, err := c.f.get(ctx, c.cfg.SubmissionsURL(cik), time.Duration(c.cfg.TTL.Submissions))
	if err != nil {
		return nil, Source{}, err
	}
	s, err := ParseSubmissions(r.Body)
	if err != nil {
		return nil, sourceOf(r), fmt.Errorf("cannot read %s: %w", r.URL, err)
	}
	return s, sourceOf(r), nil
}

// FilingsSince returns the registrant's submissions with Filings holding
// every filing dated on or after since (YYYY-MM-DD): filings.recent, plus
// the overflow files of filings.files[] whose range reaches since, read
// only when recent does not already go back that far. Filings are sorted
// newest first (by filing date, then acceptance time).
func (c *Client) FilingsSince(ctx context.Context, cik CIK, since string) (*Submissions, Source, error) {
	s, src, err := c.Submissions(ctx, cik)
	if err != nil {
		return nil, src, err
	}
	oldest := ""
	if n := len(s.Filings); n > 0 {
		oldest = s.Filings[n-1].FilingDate
		for _, f := range s.Filings {
			if f.FilingDate < oldest {
				oldest = f.FilingDate
			}
		}
	}
	all := s.Filings
	if oldest == "" || since < oldest {
		for _, file := range s.Files {
			if file.FilingTo != "" && file.FilingTo < since {
				continue
			}
			r, err := c.f.get(ctx, c.cfg.SubmissionsFileURL(file.Name), time.Duration(c.cfg.TTL.Submissions))
			if err != nil {
				return nil, src, fmt.Errorf("cannot read the overflow filings %s: %w", file.Name, err)
			}
			more, err := ParseSubmissionsFile(r.Body)
			if err != nil {
				return nil, src, fmt.Errorf("cannot read %s: %w", r.URL, err)
			}
			all = append(all, more...)
		}
	}
	out := all[:0:0]
	for _, f := range all {
		if f.FilingDate >= since {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].FilingDate != out[j].FilingDate {
			return out[i].FilingDate > out[j].FilingDate
		}
		return out[i].Accepted.After(out[j].Accepted)
	})
	cp := *s
	cp.Filings = out
	return &cp, src, nil
}

// CompanyFacts returns a registrant's XBRL companyfacts JSON, undecoded
// (operators/fundamentals.Decode reads it).
func (c *Client) CompanyFacts(ctx context.Context, cik CIK) ([]byte, Source, error) {
	r, err := c.f.get(ctx, c.cfg.CompanyFactsURL(cik), time.Duration(c.cfg.TTL.CompanyFacts))
	if err != nil {
		return nil, Source{}, err
	}
	return r.Body, sourceOf(r), nil
}

// FilingIndex returns a filing's index page, parsed.
func (c *Client) FilingIndex(ctx context.Context, cik CIK, acc Accession) (*Index, Source, error) {
	r, err := c.f.get(ctx, c.cfg.IndexURL(cik, acc), time.Duration(c.cfg.TTL.Archives))
	if err != nil {
		return nil, Source{}, err
	}
	ix, err := ParseIndex(r.Body)
	if err != nil {
		return nil, sourceOf(r), fmt.Errorf("cannot read %s: %w", r.URL, err)
	}
	return ix, sourceOf(r), nil
}

// maxHeaderSource bounds the complete submission read for its header when
// the .hdr.sgml file is missing.
const maxHeaderSource = 64 << 20

// Header returns the SEC-HEADER of a filing: from <acc>.hdr.sgml, the
// header alone, or when EDGAR has no such file from the complete
// submission text file (up to 64 MiB).
func (c *Client) Header(ctx context.Context, cik CIK, acc Accession) (*Header, Source, error) {
	ttl := time.Duration(c.cfg.TTL.Archives)
	r, err := c.f.get(ctx, c.cfg.FolderURL(cik, acc)+string(acc)+".hdr.sgml", ttl)
	if err == nil {
		if h, perr := ParseHeader(r.Body); perr == nil {
			return h, sourceOf(r), nil
		}
	}
	if err == nil || errors.Is(err, ErrNotFound) {
		r, err = c.f.getLimited(ctx, c.cfg.FullTextURL(cik, acc), ttl, min(maxHeaderSource, c.cfg.MaxBodyBytes))
	}
	if err != nil {
		return nil, Source{}, err
	}
	h, err := ParseHeader(r.Body)
	if err != nil {
		return nil, sourceOf(r), fmt.Errorf("cannot read %s: %w", r.URL, err)
	}
	return h, sourceOf(r), nil
}

// FullText returns a filing's complete submission text file.
func (c *Client) FullText(ctx context.Context, cik CIK, acc Accession) ([]byte, Source, error) {
	r, err := c.f.get(ctx, c.cfg.FullTextURL(cik, acc), time.Duration(c.cfg.TTL.Archives))
	if err != nil {
		return nil, Source{}, err
	}
	return r.Body, sourceOf(r), nil
}

// Document returns one document of a filing by file name.
func (c *Client) Document(ctx context.Context, cik CIK, acc Accession, name string) ([]byte, Source, error) {
	r, err := c.f.get(ctx, c.cfg.DocumentURL(cik, acc, name), time.Duration(c.cfg.TTL.Archives))
	if err != nil {
		return nil, Source{}, err
	}
	return r.Body, sourceOf(r), nil
}

// OwnershipXML returns the XML of an ownership filing (Form 3, 4, 5, 144
// and their amendments) listed in cik's submissions: the raw XML named by
// the filing's primaryDocument (without the xslF345X0n/ rendering prefix)
// or, when that is missing, the <XML> block of the complete submission
// text file.
func (c *Client) OwnershipXML(ctx context.Context, cik CIK, f Filing) ([]byte, Source, error) {
	var firstErr error
	if name := RawOwnershipDocument(f.PrimaryDocument); name != "" {
		b, src, err := c.Document(ctx, cik, f.Accession, name)
		if err == nil {
			return b, src, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, src, err
		}
		firstErr = err
	}
	full, src, err := c.FullText(ctx, cik, f.Accession)
	if err != nil {
		if firstErr != nil {
			return nil, src, fmt.Errorf("%w; and %w", firstErr, err)
		}
		return nil, src, err
	}
	docs, _ := ParseDocuments(full)
	for _, d := range docs {
		if x, ok := d.XML(); ok && (ParseForm(d.Type).Family == f.Form.Family || bytes.Contains(x[:min(len(x), 512)], []byte("<ownershipDocument")) || bytes.Contains(x[:min(len(x), 512)], []byte("<edgarSubmission"))) {
			return x, src, nil
		}
	}
	return nil, src, fmt.Errorf("cannot find the ownership XML of %s in %s: %w", f.Accession, src.URL,
		malformed("submission text", "no <XML> document", nil))
}

// CurrentFilings returns a page of the current-filings Atom feed.
func (c *Client) CurrentFilings(ctx context.Context, q CurrentQuery) (*CurrentFeed, Source, error) {
	r, err := c.f.get(ctx, c.cfg.CurrentFeedURL(q), time.Duration(c.cfg.TTL.CurrentFeed))
	if err != nil {
		return nil, Source{}, err
	}
	feed, err := ParseCurrentFeed(r.Body)
	if err != nil {
		return nil, sourceOf(r), fmt.Errorf("cannot read %s: %w", r.URL, err)
	}
	return feed, sourceOf(r), nil
}
