package insiders

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Ownership is an ownershipDocument: the XML of a Form 3, 4 or 5 (and
// their amendments).
type Ownership struct {
	SchemaVersion string
	// DocumentType is "4", "4/A", "3", "5", ...
	DocumentType   string
	PeriodOfReport string // YYYY-MM-DD
	// DateOfOriginalSubmission is the filing date of the form an
	// amendment amends (4/A).
	DateOfOriginalSubmission string
	NotSubjectToSection16    bool
	// Aff10b5One is the checkbox of the 2023 schema ("made pursuant to a
	// contract, instruction or written plan ... intended to satisfy Rule
	// 10b5-1(c)"); nil when the element is absent (forms before
	// 2023-04-01).
	Aff10b5One *bool
	Issuer     Issuer
	Owners     []Owner
	// Transactions are both tables' transactions, non-derivative first,
	// in document order; Holdings likewise.
	Transactions []Transaction
	Holdings     []Holding
	// Footnotes by id ("F1").
	Footnotes     map[string]string
	Remarks       string
	SignatureDate string
	// Problems lists fields that could not be read (a number that is not
	// one); the rest of the document is kept.
	Problems []string
}

// Issuer is the company whose securities are reported.
type Issuer struct {
	CIK           string // as written, 10 digits
	Name          string
	TradingSymbol string
}

// Owner is a reporting owner and their relationship to the issuer.
type Owner struct {
	CIK               string
	Name              string
	IsDirector        bool
	IsOfficer         bool
	IsTenPercentOwner bool
	IsOther           bool
	OfficerTitle      string
	OtherText         string
}

// Role describes the relationship in words: "Director", the officer
// title, "10% owner", the other text; joined by ", ".
func (o Owner) Role() string {
	var r []string
	if o.IsDirector {
		r = append(r, "Director")
	}
	if o.IsOfficer {
		if t := strings.TrimSpace(o.OfficerTitle); t != "" {
			r = append(r, t)
		} else {
			r = append(r, "Officer")
		}
	}
	if o.IsTenPercentOwner {
		r = append(r, "10% owner")
	}
	if o.IsOther {
		if t := strings.TrimSpace(o.OtherText); t != "" {
			r = append(r, t)
		} else {
			r = append(r, "Other")
		}
	}
	return strings.Join(r, ", ")
}

// Table names.
const (
	NonDerivative = "nonDerivative"
	Derivative    = "derivative"
)

// Transaction is one row of a transaction table.
type Transaction struct {
	Table         string // NonDerivative or Derivative
	SecurityTitle string
	Date          string // transactionDate, YYYY-MM-DD
	FormType      string // transactionFormType
	// Code is the transaction code (P, S, A, M, F, G, ...; see Codes).
	Code       string
	EquitySwap bool
	// Shares and PricePerShare are nil when not given (a price may be
	// given only in a footnote).
	Shares        *float64
	PricePerShare *float64
	// AcquiredDisposed is "A" or "D".
	AcquiredDisposed     string
	SharesOwnedFollowing *float64
	DirectIndirect       string // "D" or "I"
	NatureOfOwnership    string
	// Derivative rows only.
	ConversionOrExercisePrice *float64
	ExerciseDate              string
	ExpirationDate            string
	UnderlyingTitle           string
	UnderlyingShares          *float64
	// FootnoteIDs are every footnote the row refers to; PriceFootnoteIDs
	// those on its price.
	FootnoteIDs      []string
	PriceFootnoteIDs []string
}

// Holding is a row that reports a position without a transaction.
type Holding struct {
	Table          string
	SecurityTitle  string
	SharesOwned    *float64
	DirectIndirect string
	FootnoteIDs    []string
}

// DecodeOwnership reads an ownershipDocument.
func DecodeOwnership(b []byte) (*Ownership, error) {
	root, err := parse(b)
	if err != nil {
		return nil, err
	}
	return ownershipOf(root)
}

func ownershipOf(root *node) (*Ownership, error) {
	if root.name != "ownershipDocument" {
		return nil, fmt.Errorf("%w: root element <%s>, want <ownershipDocument>", ErrMalformed, root.name)
	}
	d := &Ownership{
		SchemaVersion:            root.str("schemaVersion"),
		DocumentType:             strings.ToUpper(root.str("documentType")),
		PeriodOfReport:           root.str("periodOfReport"),
		DateOfOriginalSubmission: root.str("dateOfOriginalSubmission"),
		NotSubjectToSection16:    boolFlag(root.str("notSubjectToSection16")),
		Remarks:                  root.str("remarks"),
		SignatureDate:            root.str("ownerSignature", "signatureDate"),
		Footnotes:                map[string]string{},
		Issuer: Issuer{
			CIK:           root.str("issuer", "issuerCik"),
			Name:          root.str("issuer", "issuerName"),
			TradingSymbol: root.str("issuer", "issuerTradingSymbol"),
		},
	}
	if a := root.child("aff10b5One"); a != nil {
		v := boolFlag(strings.TrimSpace(string(a.text)))
		d.Aff10b5One = &v
	}
	if d.DocumentType == "" {
		return nil, fmt.Errorf("%w: no documentType", ErrMalformed)
	}
	if d.Issuer.CIK == "" {
		return nil, fmt.Errorf("%w: no issuer/issuerCik", ErrMalformed)
	}
	for _, o := range root.all("reportingOwner") {
		rel := o.child("reportingOwnerRelationship")
		d.Owners = append(d.Owners, Owner{
			CIK:               o.str("reportingOwnerId", "rptOwnerCik"),
			Name:              o.str("reportingOwnerId", "rptOwnerName"),
			IsDirector:        boolFlag(rel.str("isDirector")),
			IsOfficer:         boolFlag(rel.str("isOfficer")),
			IsTenPercentOwner: boolFlag(rel.str("isTenPercentOwner")),
			IsOther:           boolFlag(rel.str("isOther")),
			OfficerTitle:      rel.str("officerTitle"),
			OtherText:         rel.str("otherText"),
		})
	}
	if len(d.Owners) == 0 {
		return nil, fmt.Errorf("%w: no reportingOwner", ErrMalformed)
	}
	num := func(n *node, what string) *float64 {
		s := strings.TrimSpace(string(n.path("value").textOrNil()))
		if s == "" {
			return nil
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		if err != nil || v != v || v > 1e18 || v < -1e18 {
			d.Problems = append(d.Problems, fmt.Sprintf("%s %q is not a number", what, s))
			return nil
		}
		return &v
	}
	for _, tbl := range []string{NonDerivative, Derivative} {
		t := root.child(tbl + "Table")
		for _, r := range t.all(tbl + "Transaction") {
			x := Transaction{
				Table:             tbl,
				SecurityTitle:     r.str("securityTitle", "value"),
				Date:              r.str("transactionDate", "value"),
				FormType:          r.str("transactionCoding", "transactionFormType"),
				Code:              strings.ToUpper(r.str("transactionCoding", "transactionCode")),
				EquitySwap:        boolFlag(r.str("transactionCoding", "equitySwapInvolved")),
				AcquiredDisposed:  strings.ToUpper(r.str("transactionAmounts", "transactionAcquiredDisposedCode", "value")),
				DirectIndirect:    strings.ToUpper(r.str("ownershipNature", "directOrIndirectOwnership", "value")),
				NatureOfOwnership: r.str("ownershipNature", "natureOfOwnership", "value"),
				ExerciseDate:      r.str("exerciseDate", "value"),
				ExpirationDate:    r.str("expirationDate", "value"),
				UnderlyingTitle:   r.str("underlyingSecurity", "underlyingSecurityTitle", "value"),
			}
			x.Shares = num(r.path("transactionAmounts", "transactionShares"), "transactionShares")
			x.PricePerShare = num(r.path("transactionAmounts", "transactionPricePerShare"), "transactionPricePerShare")
			x.SharesOwnedFollowing = num(r.path("postTransactionAmounts", "sharesOwnedFollowingTransaction"), "sharesOwnedFollowingTransaction")
			if tbl == Derivative {
				x.ConversionOrExercisePrice = num(r.child("conversionOrExercisePrice"), "conversionOrExercisePrice")
				x.UnderlyingShares = num(r.path("underlyingSecurity", "underlyingSecurityShares"), "underlyingSecurityShares")
			}
			x.FootnoteIDs = footnoteIDs(r)
			x.PriceFootnoteIDs = footnoteIDs(r.path("transactionAmounts", "transactionPricePerShare"))
			d.Transactions = append(d.Transactions, x)
		}
		for _, h := range t.all(tbl + "Holding") {
			d.Holdings = append(d.Holdings, Holding{
				Table:          tbl,
				SecurityTitle:  h.str("securityTitle", "value"),
				SharesOwned:    num(h.path("postTransactionAmounts", "sharesOwnedFollowingTransaction"), "sharesOwnedFollowingTransaction"),
				DirectIndirect: strings.ToUpper(h.str("ownershipNature", "directOrIndirectOwnership", "value")),
				FootnoteIDs:    footnoteIDs(h),
			})
		}
	}
	for _, f := range root.path("footnotes").all("footnote") {
		if id := f.attr("id"); id != "" {
			d.Footnotes[id] = strings.Join(strings.Fields(allText(f)), " ")
		}
	}
	return d, nil
}

func (n *node) textOrNil() []byte {
	if n == nil {
		return nil
	}
	return n.text
}

// allText is the text of n and its descendants (footnotes may hold markup).
func allText(n *node) string {
	var b strings.Builder
	n.walk(func(m *node) { b.Write(m.text); b.WriteByte(' ') })
	return b.String()
}

// footnoteIDs lists the ids of <footnoteId id="…"/> under n, each once, in
// document order.
func footnoteIDs(n *node) []string {
	var out []string
	n.walk(func(m *node) {
		if m.name == "footnoteId" {
			if id := m.attr("id"); id != "" && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	})
	return out
}

// boolFlag reads the schema's boolean tokens: "1" and "true" (any case) are
// true; "0", "false", "" and anything else false.
func boolFlag(s string) bool {
	s = strings.TrimSpace(s)
	return s == "1" || strings.EqualFold(s, "true")
}
