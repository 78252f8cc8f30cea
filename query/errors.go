package query

// Error codes of the JSON error bodies (docs/api.md). Every error body has
// "error" (one of these), "message" and "charged": false.
const (
	codeInvalidParameter = "invalid_parameter"
	codeNoData           = "no_data"
)

// appendErrorBody appends {"error":code,"message":msg,"charged":false}.
func appendErrorBody(b []byte, code, msg string) []byte {
	b = append(b, `{"error":`...)
	b = appendString(b, code)
	b = append(b, `,"message":`...)
	b = appendString(b, msg)
	return append(b, `,"charged":false}`...)
}

// paramError is a rejected query or path parameter: the 400 body names the
// parameter and what it accepts.
type paramError struct {
	param   string
	message string
	// Exactly one of acceptedList and acceptedRange is set.
	acceptedList  []string
	acceptedRange string
}

// Error implements error.
func (e *paramError) Error() string { return "invalid parameter " + e.param + ": " + e.message }

// appendBody appends the 400 body of e:
// {"error":"invalid_parameter","parameter":…,"message":…,"accepted":…,"charged":false}.
func (e *paramError) appendBody(b []byte) []byte {
	b = append(b, `{"error":"`+codeInvalidParameter+`","parameter":`...)
	b = appendString(b, e.param)
	b = append(b, `,"message":`...)
	b = appendString(b, e.message)
	b = append(b, `,"accepted":`...)
	if e.acceptedList != nil {
		b = appendStrings(b, e.acceptedList)
	} else {
		b = appendString(b, e.acceptedRange)
	}
	return append(b, `,"charged":false}`...)
}

// appendNoDataBody appends the 404 body of the single-symbol route (spec §7):
// {"error":"no_data","message":…,"symbol":…,"coveredSymbols":[…],"charged":false}.
func appendNoDataBody(b []byte, symbol, window string, covered []string) []byte {
	b = append(b, `{"error":"`+codeNoData+`","message":`...)
	b = appendString(b, "no "+window+" intelligence for "+symbol+"; coveredSymbols lists the symbols with data")
	b = append(b, `,"symbol":`...)
	b = appendString(b, symbol)
	b = append(b, `,"coveredSymbols":`...)
	b = appendStrings(b, covered)
	return append(b, `,"charged":false}`...)
}
