// Package jsonw appends JSON text to byte slices: numbers, strings, times
// and the small field helpers every hand-written renderer of the service
// uses (the live documents, the history answers, the dataset exports, the
// error bodies). It is the one place where the service decides how a number
// or a string looks in an answer (docs/api.md, "Numbers"). It imports
// nothing of the service, so every layer may use it.
package jsonw

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendFloat appends v as a JSON number: the shortest decimal that reads
// back as v, in the notation encoding/json uses. NaN and ±Inf render as 0,
// and so does -0.
func AppendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return append(b, '0')
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendFloatField appends `,"name":v` with v as AppendFloat writes it.
func AppendFloatField(b []byte, name string, v float64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return AppendFloat(b, v)
}

// AppendIntField appends `,"name":v`.
func AppendIntField(b []byte, name string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

// TimeLayout is RFC 3339 with milliseconds; in UTC it ends in Z.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// AppendTime appends the Unix-nanosecond time ns as a quoted RFC 3339 UTC
// string with milliseconds (truncated, not rounded).
func AppendTime(b []byte, ns int64) []byte {
	b = append(b, '"')
	b = time.Unix(0, ns).UTC().AppendFormat(b, TimeLayout)
	return append(b, '"')
}

// AppendTimeOrNull is AppendTime, with null for 0 (unknown).
func AppendTimeOrNull(b []byte, ns int64) []byte {
	if ns == 0 {
		return append(b, "null"...)
	}
	return AppendTime(b, ns)
}

// FormatTime formats Unix nanoseconds as AppendTime does, without quotes.
func FormatTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format(TimeLayout)
}

// AppendStrings appends ss as a JSON array of strings; nil renders as [].
func AppendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// AppendStringOrNull appends s as AppendString does, or null when s is
// empty.
func AppendStringOrNull(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return AppendString(b, s)
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a quoted JSON string. Control characters,
// quotes and backslashes are escaped, and so are <, >, & and U+2028/U+2029
// (as encoding/json does, so a body is safe to embed in HTML or JavaScript);
// invalid UTF-8 becomes U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
