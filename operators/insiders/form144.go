package insiders

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Notice is a Form 144: notice of a proposed sale of restricted or control
// securities, filed by (or for) an insider before selling.
type Notice struct {
	SubmissionType string // "144", "144/A"
	IssuerCIK      string
	IssuerName     string
	// Seller is the person for whose account the securities are to be
	// sold; Relationships their relationship to the issuer ("Director",
	// "Officer", ...).
	Seller        string
	Relationships []string
	SecurityClass string
	Broker        string
	UnitsToSell   *float64
	// AggregateMarketValue is the market value of the units to sell, USD,
	// as the filer states it.
	AggregateMarketValue *float64
	UnitsOutstanding     *float64
	// ApproxSaleDate and NoticeDate are YYYY-MM-DD (the XML writes
	// MM/DD/YYYY).
	ApproxSaleDate string
	NoticeDate     string
	// PlanAdoptionDates are the adoption dates of the Rule 10b5-1 plan the
	// sale is made under, when the filer gives them (YYYY-MM-DD).
	PlanAdoptionDates []string
	Remarks           string
	Problems          []string
}

// Planned reports whether the sale is under a Rule 10b5-1 plan: a plan
// adoption date is given, or the remarks say so (TenB51Text).
func (n *Notice) Planned() bool {
	return len(n.PlanAdoptionDates) > 0 || TenB51Text(n.Remarks)
}

// DecodeForm144 reads a Form 144 edgarSubmission.
func DecodeForm144(b []byte) (*Notice, error) {
	root, err := parse(b)
	if err != nil {
		return nil, err
	}
	return form144Of(root)
}

func form144Of(root *node) (*Notice, error) {
	if root.name != "edgarSubmission" {
		return nil, fmt.Errorf("%w: root element <%s>, want <edgarSubmission>", ErrMalformed, root.name)
	}
	n := &Notice{SubmissionType: strings.ToUpper(root.str("headerData", "submissionType"))}
	if !strings.HasPrefix(n.SubmissionType, "144") {
		return nil, fmt.Errorf("%w: submissionType %q is not a Form 144", ErrMalformed, n.SubmissionType)
	}
	fd := root.child("formData")
	ii := fd.child("issuerInfo")
	n.IssuerCIK = ii.str("issuerCik")
	n.IssuerName = ii.str("issuerName")
	n.Seller = ii.str("nameOfPersonForWhoseAccountTheSecuritiesAreToBeSold")
	for _, r := range ii.path("relationshipsToIssuer").all("relationshipToIssuer") {
		if s := strings.TrimSpace(string(r.text)); s != "" {
			n.Relationships = append(n.Relationships, s)
		}
	}
	if n.IssuerCIK == "" {
		return nil, fmt.Errorf("%w: no issuerInfo/issuerCik", ErrMalformed)
	}
	si := fd.child("securitiesInformation")
	n.SecurityClass = si.str("securitiesClassTitle")
	n.Broker = si.str("brokerOrMarketmakerDetails", "name")
	num := func(what string) *float64 {
		s := strings.ReplaceAll(si.str(what), ",", "")
		if s == "" {
			return nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v != v {
			n.Problems = append(n.Problems, fmt.Sprintf("%s %q is not a number", what, s))
			return nil
		}
		return &v
	}
	n.UnitsToSell = num("noOfUnitsSold")
	n.AggregateMarketValue = num("aggregateMarketValue")
	n.UnitsOutstanding = num("noOfUnitsOutstanding")
	date := func(s, what string) string {
		s = strings.TrimSpace(s)
		if s == "" {
			return ""
		}
		t, err := time.Parse("01/02/2006", s)
		if err != nil {
			n.Problems = append(n.Problems, fmt.Sprintf("%s %q is not MM/DD/YYYY", what, s))
			return ""
		}
		return t.Format(time.DateOnly)
	}
	n.ApproxSaleDate = date(si.str("approxSaleDate"), "approxSaleDate")
	n.NoticeDate = date(fd.str("noticeSignature", "noticeDate"), "noticeDate")
	for _, p := range fd.path("noticeSignature", "planAdoptionDates").all("planAdoptionDate") {
		if d := date(string(p.text), "planAdoptionDate"); d != "" {
			n.PlanAdoptionDates = append(n.PlanAdoptionDates, d)
		}
	}
	n.Remarks = strings.Join(strings.Fields(fd.str("remarks")), " ")
	return n, nil
}
