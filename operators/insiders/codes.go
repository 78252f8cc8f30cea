package insiders

import "regexp"

// Code is a Form 4 transaction code (General Instructions, item 8).
type Code struct {
	Code        string `json:"code"`
	Description string `json:"description"`
	// Category groups codes for the answer's summary: purchase, sale,
	// grant, exercise, taxWithholding, gift, other.
	Category string `json:"category"`
}

// Transaction categories.
const (
	CatPurchase       = "purchase"
	CatSale           = "sale"
	CatGrant          = "grant"
	CatExercise       = "exercise"
	CatTaxWithholding = "taxWithholding"
	CatGift           = "gift"
	CatOther          = "other"
)

// Codes are the transaction codes of Forms 4 and 5.
var Codes = []Code{
	{"P", "Open market or private purchase of non-derivative or derivative security", CatPurchase},
	{"S", "Open market or private sale of non-derivative or derivative security", CatSale},
	{"A", "Grant, award or other acquisition pursuant to Rule 16b-3(d)", CatGrant},
	{"M", "Exercise or conversion of derivative security exempted pursuant to Rule 16b-3", CatExercise},
	{"X", "Exercise of in-the-money or at-the-money derivative security", CatExercise},
	{"O", "Exercise of out-of-the-money derivative security", CatExercise},
	{"C", "Conversion of derivative security", CatExercise},
	{"F", "Payment of exercise price or tax liability by delivering or withholding securities incident to the receipt, exercise or vesting of a security issued in accordance with Rule 16b-3", CatTaxWithholding},
	{"G", "Bona fide gift", CatGift},
	{"D", "Disposition to the issuer of issuer equity securities pursuant to Rule 16b-3(e)", CatOther},
	{"I", "Discretionary transaction in accordance with Rule 16b-3(f) resulting in acquisition or disposition of issuer securities", CatOther},
	{"V", "Transaction voluntarily reported earlier than required", CatOther},
	{"L", "Small acquisition under Rule 16a-6", CatOther},
	{"W", "Acquisition or disposition by will or the laws of descent and distribution", CatOther},
	{"Z", "Deposit into or withdrawal from voting trust", CatOther},
	{"J", "Other acquisition or disposition (describe transaction)", CatOther},
	{"K", "Transaction in equity swap or instrument with similar characteristics", CatOther},
	{"E", "Expiration of short derivative position", CatOther},
	{"H", "Expiration (or cancellation) of long derivative position with value received", CatOther},
	{"U", "Disposition pursuant to a tender of shares in a change of control transaction", CatOther},
}

var codeByLetter = func() map[string]Code {
	m := map[string]Code{}
	for _, c := range Codes {
		m[c.Code] = c
	}
	return m
}()

// CodeOf returns the code's entry; an unknown code is category other with
// the description "unknown transaction code".
func CodeOf(code string) Code {
	if c, ok := codeByLetter[code]; ok {
		return c
	}
	return Code{Code: code, Description: "unknown transaction code", Category: CatOther}
}

var (
	tenB51     = regexp.MustCompile(`(?i)10b5-?1|10b-5-1|10b5\(1\)`)
	tenB51Deny = regexp.MustCompile(`(?i)\bnot\b[^.;]{0,60}(?:10b5-?1|10b-5-1|trading plan)|(?:10b5-?1|10b-5-1)[^.;]{0,40}\b(?:terminated|did not apply|not applicable)\b|other than pursuant to`)
	weighted   = regexp.MustCompile(`(?i)weighted[- ]average`)
	priceRange = regexp.MustCompile(`\$\s?([0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:to|-|–|through)\s*\$\s?([0-9][0-9,]*(?:\.[0-9]+)?)`)
)

// TenB51Text reports whether a footnote or remark says a transaction was
// made under a Rule 10b5-1 plan: it names Rule 10b5-1 and does not deny it
// ("not made pursuant to a Rule 10b5-1 plan", "other than pursuant to",
// "the 10b5-1 plan was terminated").
func TenB51Text(s string) bool {
	return tenB51.MatchString(s) && !tenB51Deny.MatchString(s)
}
