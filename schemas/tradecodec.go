package schemas

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// The hot path of the pipeline encodes and decodes one Trade per record.
// AppendTrade and UnmarshalTrade do it without reflection; they produce and
// accept exactly the Protocol Buffers encoding of mi.proto (tests compare
// them with the generated code on random trades).

// AppendTrade appends the encoding of t to b: byte-identical to
// proto.MarshalOptions{Deterministic: true}.Marshal(t) for a trade without
// unknown fields.
func AppendTrade(b []byte, t *Trade) []byte {
	b = appendString(b, 1, t.Venue)
	b = appendVarint(b, 2, uint64(t.VenueKind))
	b = appendString(b, 3, t.Chain)
	b = appendString(b, 4, t.Market)
	b = appendString(b, 5, t.Symbol)
	b = appendString(b, 6, t.VenueSymbol)
	b = appendVarint(b, 7, uint64(t.EventTimeNs))
	b = appendVarint(b, 8, uint64(t.IngestTimeNs))
	b = appendDouble(b, 9, t.Price)
	b = appendDouble(b, 10, t.Size)
	b = appendDouble(b, 11, t.NotionalUsd)
	b = appendVarint(b, 12, uint64(t.Side))
	b = appendString(b, 13, t.TradeId)
	b = appendVarint(b, 14, uint64(t.LogIndex))
	b = appendString(b, 15, t.Wallet)
	b = appendString(b, 16, t.Source)
	return b
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendDouble(b []byte, num protowire.Number, v float64) []byte {
	// proto3 omits a double only when its bits are all zero (so -0 is kept).
	if math.Float64bits(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}

// ErrBadEncoding is wrapped by UnmarshalTrade's errors.
var ErrBadEncoding = errors.New("bad protobuf encoding")

// Interner returns a shared string for a byte slice, so that the few
// distinct venues, symbols and sources in a stream are allocated once. The
// zero value is ready; it forgets everything when it holds more than 4,096
// strings. Not safe for concurrent use.
type Interner struct{ m map[string]string }

// String returns a string equal to b.
func (in *Interner) String(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	if in.m == nil || len(in.m) >= 4096 {
		in.m = make(map[string]string, 64)
	}
	s := string(b)
	in.m[s] = s
	return s
}

// UnmarshalTrade decodes b into t, which it resets first. Strings that
// repeat across a stream (venue, chain, market, symbols, source) come from
// in; trade ids and wallets are allocated. It accepts what proto.Unmarshal
// accepts and yields the same message (FuzzUnmarshalTrade checks it).
func UnmarshalTrade(b []byte, t *Trade, in *Interner) error {
	t.Reset()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", ErrBadEncoding, protowire.ParseError(n))
		}
		if num > protowire.MaxValidNumber {
			return fmt.Errorf("%w: field number %d out of range", ErrBadEncoding, num)
		}
		b = b[n:]
		var err error
		switch {
		case typ == protowire.BytesType && isTradeString(num):
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return fmt.Errorf("%w: field %d: %v", ErrBadEncoding, num, protowire.ParseError(m))
			}
			b = b[m:]
			err = setTradeString(t, num, v, in)
		case typ == protowire.VarintType && isTradeVarint(num):
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return fmt.Errorf("%w: field %d: %v", ErrBadEncoding, num, protowire.ParseError(m))
			}
			b = b[m:]
			setTradeVarint(t, num, v)
		case typ == protowire.Fixed64Type && num >= 9 && num <= 11:
			v, m := protowire.ConsumeFixed64(b)
			if m < 0 {
				return fmt.Errorf("%w: field %d: %v", ErrBadEncoding, num, protowire.ParseError(m))
			}
			b = b[m:]
			f := math.Float64frombits(v)
			switch num {
			case 9:
				t.Price = f
			case 10:
				t.Size = f
			default:
				t.NotionalUsd = f
			}
		default:
			// Unknown fields, and known fields with another wire type, are
			// skipped, as the generated code does.
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return fmt.Errorf("%w: field %d: %v", ErrBadEncoding, num, protowire.ParseError(m))
			}
			b = b[m:]
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func isTradeString(num protowire.Number) bool {
	switch num {
	case 1, 3, 4, 5, 6, 13, 15, 16:
		return true
	}
	return false
}

func isTradeVarint(num protowire.Number) bool {
	switch num {
	case 2, 7, 8, 12, 14:
		return true
	}
	return false
}

func setTradeString(t *Trade, num protowire.Number, v []byte, in *Interner) error {
	if !utf8Valid(v) {
		return fmt.Errorf("%w: field %d is not valid UTF-8", ErrBadEncoding, num)
	}
	switch num {
	case 1:
		t.Venue = in.String(v)
	case 3:
		t.Chain = in.String(v)
	case 4:
		t.Market = in.String(v)
	case 5:
		t.Symbol = in.String(v)
	case 6:
		t.VenueSymbol = in.String(v)
	case 13:
		t.TradeId = string(v)
	case 15:
		t.Wallet = string(v)
	case 16:
		t.Source = in.String(v)
	}
	return nil
}

func setTradeVarint(t *Trade, num protowire.Number, v uint64) {
	switch num {
	case 2:
		t.VenueKind = VenueKind(int32(v))
	case 7:
		t.EventTimeNs = int64(v)
	case 8:
		t.IngestTimeNs = int64(v)
	case 12:
		t.Side = Side(int32(v))
	case 14:
		t.LogIndex = uint32(v)
	}
}

// utf8Valid is utf8.Valid with an ASCII fast path.
func utf8Valid(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return utf8.Valid(b)
		}
	}
	return true
}
