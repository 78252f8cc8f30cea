package perps

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Dead-letter reasons: the stable phrase each reason starts with.
const (
	// ReasonMalformedJSON: the answer is not the JSON the endpoint documents.
	ReasonMalformedJSON = "malformed json"
	// ReasonVenueError: the venue answered with an error object (Binance
	// {"code":…,"msg":…}, Bybit retCode ≠ 0).
	ReasonVenueError = "venue error"
	// ReasonBadValue: one item of a good answer carries a value that is not a
	// finite number in range; the item is rejected, the rest used.
	ReasonBadValue = "bad value"
	// ReasonUnknownSymbol: a perp whose venue symbol does not map to a USD
	// symbol (see Normalize). Counted, never dead-lettered: venues list many.
	ReasonUnknownSymbol = "unknown symbol"
)

// ErrParse is wrapped by every *ParseError.
var ErrParse = errors.New("cannot parse venue answer")

// ParseError is an answer that cannot be used at all. Its Error text is the
// dead-letter reason: the stable phrase (ReasonMalformedJSON or
// ReasonVenueError) first, then the venue, the endpoint and details.
type ParseError struct {
	Reason   string // ReasonMalformedJSON or ReasonVenueError
	Venue    string
	Endpoint string
	Detail   string
}

func (e *ParseError) Error() string {
	return e.Reason + ": " + e.Venue + " " + e.Endpoint + ": " + e.Detail
}

// Unwrap makes errors.Is(err, ErrParse) true.
func (e *ParseError) Unwrap() error { return ErrParse }

func malformed(venue, endpoint string, err error) *ParseError {
	return &ParseError{Reason: ReasonMalformedJSON, Venue: venue, Endpoint: endpoint, Detail: err.Error()}
}

// Reject is one item of an otherwise usable answer that could not be used:
// the item's venue symbol (or index) and the reason, whose text starts with
// ReasonBadValue.
type Reject struct {
	Venue, VenueSymbol string
	Reason             string
}

// num parses a decimal string a venue sends for a number. It refuses empty
// strings, NaN, infinities and values beyond ±1e18 (nothing a venue sends is
// that large; it keeps sums finite).
func num(field, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e18 {
		return 0, fmt.Errorf("%s: %s %q", ReasonBadValue, field, s)
	}
	return v, nil
}

// optNum is num for a field that may be null or absent (nil): 0.
func optNum(field string, s *string) (float64, error) {
	if s == nil {
		return 0, nil
	}
	return num(field, *s)
}

// msNs converts Unix milliseconds to nanoseconds, refusing times outside
// 2009..2100 (schemas bounds) so a bad timestamp cannot overflow.
func msNs(field string, ms int64) (int64, error) {
	if ms < 1230940800000 || ms >= 4102444800000 {
		return 0, fmt.Errorf("%s: %s %d", ReasonBadValue, field, ms)
	}
	return ms * 1e6, nil
}

// msStrNs is msNs of a decimal string (Bybit sends times as strings).
func msStrNs(field, s string) (int64, error) {
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s %q", ReasonBadValue, field, s)
	}
	return msNs(field, ms)
}
