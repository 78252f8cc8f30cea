package edgar

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers test with errors.Is; the wrapping error's
// message says what and why.
var (
	// ErrMalformed: a document is not what its format requires (bad JSON,
	// truncated XML, missing required fields). The message, which starts
	// with the format ("malformed submissions json: ..."), is the
	// dead-letter reason.
	ErrMalformed = errors.New("malformed")
	// ErrNotFound: EDGAR answered 404 (no such company, filing or
	// document), or a ticker has no CIK.
	ErrNotFound = errors.New("not found on EDGAR")
	// ErrUnknownTicker: the ticker is not in EDGAR's ticker map (a crypto
	// symbol, a delisted or foreign company without a US listing). It
	// wraps ErrNotFound.
	ErrUnknownTicker = fmt.Errorf("unknown ticker: %w", ErrNotFound)
	// ErrRateLimited: EDGAR kept answering 403 or 429, or asked to wait
	// longer than the caller's deadline allows.
	ErrRateLimited = errors.New("EDGAR rate limit")
	// ErrUnreachable: the request failed at the network level, timed out
	// or got a 5xx after the retries.
	ErrUnreachable = errors.New("EDGAR unreachable")
	// ErrTooLarge: the response is larger than the configured limit.
	ErrTooLarge = errors.New("EDGAR response too large")
)

// FormatError is a decoding failure of one EDGAR format. It matches
// ErrMalformed with errors.Is.
type FormatError struct {
	// Format names the document kind: "submissions json", "company
	// tickers json", "current feed atom", "sec header", "filing index
	// html", "ownership xml", "companyfacts json", ...
	Format string
	// Reason is a short phrase saying what is wrong.
	Reason string
	// Err is the underlying decoder error, if any.
	Err error
}

func (e *FormatError) Error() string {
	s := "malformed " + e.Format + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is makes a FormatError match ErrMalformed.
func (e *FormatError) Is(target error) bool { return target == ErrMalformed }

func (e *FormatError) Unwrap() error { return e.Err }

func malformed(format, reason string, err error) error {
	return &FormatError{Format: format, Reason: reason, Err: err}
}
