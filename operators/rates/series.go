package rates

import (
	"strconv"
	"strings"
)

// SeriesKey names the series an auction belongs to, for "the previous
// auction of the same security": the kind (Bill, CMB, Note, Bond, TIPS,
// FRN) and the original term. Bills are keyed by their own term (a 13-week
// bill that reopens a 26-week bill belongs to the 13-week series); notes,
// bonds, TIPS and FRNs by their original term, so a reopening ("9-Year
// 10-Month") joins its original series ("10-Year"). When the publisher
// leaves the original term out, a term of years and months is rounded up
// to whole years. Examples: "Bill 13-Week", "Note 10-Year", "TIPS 5-Year".
func SeriesKey(kind, securityType, securityTerm, originalTerm string) string {
	term := securityTerm
	if kind != "Bill" && kind != "CMB" && securityType != "Bill" {
		if originalTerm != "" {
			term = originalTerm
		} else {
			term = roundUpToYears(securityTerm)
		}
	}
	return kind + " " + term
}

// roundUpToYears turns "9-Year 10-Month" into "10-Year"; other terms are
// returned as they are.
func roundUpToYears(term string) string {
	y, m, ok := strings.Cut(term, " ")
	if !ok || !strings.HasSuffix(y, "-Year") || !strings.HasSuffix(m, "-Month") {
		return term
	}
	years, err1 := strconv.Atoi(strings.TrimSuffix(y, "-Year"))
	months, err2 := strconv.Atoi(strings.TrimSuffix(m, "-Month"))
	if err1 != nil || err2 != nil || years < 0 || months < 0 {
		return term
	}
	if months > 0 {
		years++
	}
	return strconv.Itoa(years) + "-Year"
}
