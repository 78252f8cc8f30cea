package sec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/marketintel/mi/operators/fundamentals"
	"github.com/marketintel/mi/pipeline/sources/edgar"
)

// fundamentalsAnswer is a computed answer and whether it came from a stale
// EDGAR copy.
type fundamentalsAnswer struct {
	out *fundamentals.Intelligence
}

// latestForms are the forms whose newest filing is latestFiling.
var latestForms = []string{"10-K", "10-Q", "8-K", "20-F", "40-F", "6-K"}

// Fundamentals answers /api/v1/fundamentals/{symbol} for a normalized
// symbol (see Symbol). Errors are *Error.
func (s *Service) Fundamentals(ctx context.Context, sym string) (*fundamentals.Intelligence, error) {
	now := s.cfg.Now()
	a, err := s.fund.do(ctx, sym, now, s.cfg.TTL, func(ctx context.Context) (*fundamentalsAnswer, error) {
		return s.computeFundamentals(ctx, sym, now)
	})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, &Error{Status: 503, Code: CodeUnavailable, Symbol: sym, Err: err, Message: "cannot compute the fundamentals of " + sym + ": " + err.Error()}
	}
	return a.out, nil
}

func (s *Service) computeFundamentals(ctx context.Context, sym string, now time.Time) (*fundamentalsAnswer, error) {
	c := s.cfg.Client
	co, err := s.company(ctx, sym)
	if err != nil {
		return nil, err
	}
	subs, subSrc, err := c.Submissions(ctx, co.CIK)
	if err != nil {
		return nil, upstream(sym, "the submissions of CIK "+co.CIK.Padded(), err)
	}
	raw, src, err := c.CompanyFacts(ctx, co.CIK)
	if errors.Is(err, edgar.ErrNotFound) {
		return nil, &Error{Status: 404, Code: CodeNoData, Symbol: sym, Err: err,
			Message: fmt.Sprintf("%s (%s, CIK %s) has no XBRL financial data on EDGAR: no companyfacts (funds, trusts and foreign issuers filing 20-F or 40-F without XBRL have none)", sym, subs.Name, co.CIK.Padded())}
	}
	if err != nil {
		return nil, upstream(sym, "the XBRL company facts of CIK "+co.CIK.Padded(), err)
	}
	facts, err := fundamentals.Decode(raw)
	if err != nil {
		return nil, &Error{Status: 404, Code: CodeNoData, Symbol: sym, Err: err,
			Message: fmt.Sprintf("the XBRL company facts of %s (CIK %s) could not be read: %v", sym, co.CIK.Padded(), err)}
	}
	in := fundamentals.Input{Facts: facts, Symbol: sym, CIK: co.CIK.Padded(), CompanyName: subs.Name,
		SourceURL: src.URL, FetchedAt: src.FetchedAt, AsOf: now}
	if f, ok := subs.Latest(latestForms...); ok {
		in.LatestFiling = &fundamentals.LatestFiling{Form: f.Form.Name, FilingDate: f.FilingDate, AccessionNumber: string(f.Accession),
			PrimaryDocument: f.PrimaryDocument, ReportDate: f.ReportDate}
		if f.PrimaryDocument != "" {
			in.LatestFiling.URL = c.Endpoints().DocumentURL(co.CIK, f.Accession, f.PrimaryDocument)
		}
	}
	out, err := fundamentals.Compute(in)
	if errors.Is(err, fundamentals.ErrNoData) {
		return nil, &Error{Status: 404, Code: CodeNoData, Symbol: sym, Err: err,
			Message: fmt.Sprintf("%s (%s, CIK %s) reports none of the financial statement concepts the fundamentals are built from (us-gaap or ifrs-full revenue, income, assets, ...)", sym, subs.Name, co.CIK.Padded())}
	}
	if err != nil {
		return nil, err
	}
	for _, x := range []edgar.Source{src, subSrc} {
		if x.Stale {
			out.Methodology = append(out.Methodology, fmt.Sprintf("EDGAR could not be reached: %s is the copy read at %s.", x.URL, x.FetchedAt.UTC().Format(time.RFC3339)))
		}
	}
	out.Methodology = append(out.Methodology, fmt.Sprintf("Company facts read from EDGAR at %s.", src.FetchedAt.UTC().Format(time.RFC3339)))
	if s.cfg.Snapshots != nil {
		if err := s.cfg.Snapshots.Fundamentals(out); err != nil {
			s.cfg.Logger.Warn("cannot write the fundamentals snapshot", "symbol", sym, "err", err)
		}
	}
	return &fundamentalsAnswer{out: out}, nil
}
