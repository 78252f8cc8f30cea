package edgar

import (
	"bytes"
	"errors"
	"testing"
)

// Every parser of EDGAR input either succeeds with the format's invariants
// or fails with ErrMalformed; none panics. Seeds are the real captures and
// cut or edited copies of them.

func seed(f *testing.F, names ...string) {
	for _, n := range names {
		b := readFixture(f, n)
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(bytes.ReplaceAll(b, []byte("0"), []byte("x")))
	}
	f.Add([]byte{})
	f.Add([]byte("null"))
}

func FuzzParseSubmissions(f *testing.F) {
	seed(f, "submissions_CIK0001462356_insider_AdamsKatherine.json")
	f.Add([]byte(`{"cik":"1","filings":{"recent":{"accessionNumber":["0000000001-22-000001"],"filingDate":["2022-01-01"],"form":["4"],"acceptanceDateTime":["2022-01-01T10:00:00.000Z"],"items":["2.02,9.01"]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSubmissions(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if s.CIK == 0 {
			t.Fatal("parsed submissions without a CIK")
		}
		for _, fl := range s.Filings {
			if _, err := ParseAccession(string(fl.Accession)); err != nil {
				t.Fatalf("filing with accession %q", fl.Accession)
			}
		}
		if _, err := ParseSubmissionsFile(b); err != nil && !errors.Is(err, ErrMalformed) {
			t.Fatal(err)
		}
	})
}

func FuzzParseTickers(f *testing.F) {
	f.Add([]byte(`{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},"1":{"cik_str":789019,"ticker":"MSFT","title":"MICROSOFT CORP"}}`))
	f.Add([]byte(`{"fields":["cik","name","ticker","exchange"],"data":[[320193,"Apple Inc.","AAPL","Nasdaq"],[1,"X","BRK.B",null]]}`))
	f.Add([]byte(`{"0":{"cik_str":"320193","ticker":"aapl","title":"Apple Inc."}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, parse := range []func([]byte) (*Tickers, error){ParseTickers, ParseTickersExchange} {
			tk, err := parse(b)
			if err != nil {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("error %v does not wrap ErrMalformed", err)
				}
				continue
			}
			for tick, c := range tk.byTicker {
				if n, ok := NormalizeTicker(tick); !ok || n != tick || c.CIK == 0 {
					t.Fatalf("bad entry %q %+v", tick, c)
				}
			}
		}
	})
}

func FuzzParseCurrentFeed(f *testing.F) {
	seed(f, "edgar_getcurrent_form4_atom.xml")
	f.Fuzz(func(t *testing.T, b []byte) {
		feed, err := ParseCurrentFeed(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		for _, e := range feed.Entries {
			if e.CIK == 0 || e.Accession == "" {
				t.Fatalf("entry without CIK or accession: %+v", e)
			}
		}
		_ = feed.Filings()
	})
}

func FuzzParseHeader(f *testing.F) {
	b := readFixture(f, "8k_0000796343-23-000044_ADBE_item2.02.txt")
	end := bytes.Index(b, []byte("</SEC-HEADER>")) + len("</SEC-HEADER>\n")
	f.Add(b[:end])
	f.Add(b[:end/2])
	seed(f, "form4_0000320193-22-000061_AAPL_Adams_10b5-1.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
		} else if h.Accession == "" || h.Form.Name == "" {
			t.Fatalf("header without accession or form: %+v", h)
		}
		docs, _ := ParseDocuments(b)
		for _, d := range docs {
			_, _ = d.XML()
		}
	})
}

func FuzzParseIndex(f *testing.F) {
	seed(f, "8k_0000796343-23-000044_ADBE-index.html", "10q_0000912057-00-023442_AAPL_2000-05-11-index.html")
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := ParseIndex(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if ix.Accession == "" || ix.Form.Name == "" {
			t.Fatalf("index without accession or form: %+v", ix)
		}
	})
}

func FuzzItemsAndForms(f *testing.F) {
	for _, s := range []string{"2.02,9.01", "Item 2.02: Results of Operations and Financial Condition", "SC 13D/A", "Item 3C.7: Section 3(c)(7)", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = ParseItemList(s)
		_, _ = ParseItemLine(s)
		_ = ItemByDescription(s)
		form := ParseForm(s)
		if form.Amendment && form.Name != form.Base+"/A" && form.Name != form.Base+" /A" {
			t.Fatalf("ParseForm(%q) = %+v", s, form)
		}
		if n, ok := NormalizeTicker(s); ok {
			if n2, ok2 := NormalizeTicker(n); !ok2 || n2 != n {
				t.Fatalf("NormalizeTicker not idempotent on %q", s)
			}
		}
	})
}
