package sec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/marketintel/mi/operators/insiders"
	"github.com/marketintel/mi/pipeline/sources/edgar"
)

// maxNotices bounds the Form 144 notices one answer reads.
const maxNotices = 20

// Insiders answers /api/v1/insiders/{symbol}?days= for a normalized symbol
// and validated days (see Symbol, Days). Errors are *Error.
func (s *Service) Insiders(ctx context.Context, sym string, days int) (*insiders.Analysis, error) {
	now := s.cfg.Now()
	asOf := now
	if !s.cfg.InsidersAsOf.IsZero() {
		asOf = s.cfg.InsidersAsOf
	}
	key := sym + "|" + strconv.Itoa(days)
	a, err := s.ins.do(ctx, key, now, s.cfg.TTL, func(ctx context.Context) (*insiders.Analysis, error) {
		return s.computeInsiders(ctx, sym, days, asOf)
	})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, &Error{Status: 503, Code: CodeUnavailable, Symbol: sym, Err: err, Message: "cannot analyze the insiders of " + sym + ": " + err.Error()}
	}
	return a, nil
}

func (s *Service) computeInsiders(ctx context.Context, sym string, days int, now time.Time) (*insiders.Analysis, error) {
	c := s.cfg.Client
	co, err := s.company(ctx, sym)
	if err != nil {
		return nil, err
	}
	start, _ := insiders.Window(days, now)
	subs, src, err := c.FilingsSince(ctx, co.CIK, start)
	var partial string
	if err != nil {
		// Without the overflow files the window is read from
		// filings.recent alone, and the answer says so.
		recent, rsrc, rerr := c.Submissions(ctx, co.CIK)
		if rerr != nil {
			return nil, upstream(sym, "the submissions of CIK "+co.CIK.Padded(), rerr)
		}
		subs, src = recent, rsrc
		partial = "Older filings could not be read (" + err.Error() + "); the window starting " + start +
			" is read from the submissions' recent filings only, which go back to " + oldest(recent) + "."
	}
	byAcc := map[string]edgar.Filing{}
	listed := make([]insiders.Listed, 0, len(subs.Filings))
	for _, f := range subs.Filings {
		byAcc[string(f.Accession)] = f
		listed = append(listed, insiders.Listed{Accession: string(f.Accession), Form: f.Form.Name, FilingDate: f.FilingDate, Accepted: f.Accepted})
	}
	sel, inWindow := insiders.Select(listed, []string{"4", "4/A"}, days, now, insiders.MaxFilings)
	notes, _ := insiders.Select(listed, []string{"144", "144/A"}, days, now, maxNotices)

	filings := make([]insiders.Filing, len(sel))
	notices := make([]insiders.NoticeFiling, len(notes))
	type job struct {
		i      int
		notice bool
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < s.cfg.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if j.notice {
					notices[j.i] = s.readNotice(ctx, co.CIK, byAcc[notes[j.i].Accession], notes[j.i])
				} else {
					filings[j.i] = s.readForm4(ctx, co.CIK, byAcc[sel[j.i].Accession], sel[j.i])
				}
			}
		}()
	}
	for i := range sel {
		jobs <- job{i, false}
	}
	for i := range notes {
		jobs <- job{i, true}
	}
	close(jobs)
	wg.Wait()

	a := insiders.Analyze(insiders.Params{Symbol: sym, CIK: co.CIK.Padded(), CompanyName: subs.Name, Days: days, AsOf: now,
		SourceURL: src.URL, Listed: inWindow}, filings, notices)
	if partial != "" {
		a.Methodology = append(a.Methodology, partial)
		a.DataQuality.Problems = append(a.DataQuality.Problems, partial)
	}
	if src.Stale {
		a.Methodology = append(a.Methodology, fmt.Sprintf("EDGAR could not be reached: the filings list is the copy read at %s.", src.FetchedAt.UTC().Format(time.RFC3339)))
	}
	a.Methodology = append(a.Methodology, fmt.Sprintf("Filings listed from EDGAR at %s.", src.FetchedAt.UTC().Format(time.RFC3339)))
	if !s.cfg.InsidersAsOf.IsZero() {
		a.Methodology = append(a.Methodology, fmt.Sprintf("Computed as of %s, a fixed date set by the operator of this server (--sec-insiders-as-of), not the current time: the window ends on that date.",
			now.UTC().Format(time.RFC3339)))
	}
	if s.cfg.Snapshots != nil {
		if err := s.cfg.Snapshots.Insiders(a); err != nil {
			s.cfg.Logger.Warn("cannot write the insiders snapshot", "symbol", sym, "err", err)
		}
	}
	return a, nil
}

func (s *Service) readForm4(ctx context.Context, cik edgar.CIK, f edgar.Filing, l insiders.Listed) insiders.Filing {
	out := insiders.Filing{Listed: l, URL: s.cfg.Client.Endpoints().IndexURL(cik, f.Accession)}
	x, _, err := s.cfg.Client.OwnershipXML(ctx, cik, f)
	if err != nil {
		if errors.Is(err, edgar.ErrMalformed) {
			out.Problem = "malformed: " + err.Error()
		} else {
			out.Problem = "unavailable: " + err.Error()
		}
		return out
	}
	d, err := insiders.DecodeOwnership(x)
	if err != nil {
		out.Problem = "malformed: " + err.Error()
		return out
	}
	out.Doc = d
	return out
}

func (s *Service) readNotice(ctx context.Context, cik edgar.CIK, f edgar.Filing, l insiders.Listed) insiders.NoticeFiling {
	out := insiders.NoticeFiling{Listed: l, URL: s.cfg.Client.Endpoints().IndexURL(cik, f.Accession)}
	x, _, err := s.cfg.Client.OwnershipXML(ctx, cik, f)
	if err != nil {
		out.Problem = "unavailable: " + err.Error()
		return out
	}
	n, err := insiders.DecodeForm144(x)
	if err != nil {
		out.Problem = "malformed: " + err.Error()
		return out
	}
	out.Notice = n
	return out
}

func oldest(s *edgar.Submissions) string {
	o := ""
	for _, f := range s.Filings {
		if o == "" || f.FilingDate < o {
			o = f.FilingDate
		}
	}
	return o
}
