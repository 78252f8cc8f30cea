package uscal

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
)

func d(s string) Date {
	x, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return x
}

func TestDate(t *testing.T) {
	f := func(s string, wd time.Weekday) {
		t.Helper()
		x := d(s)
		if x.String() != s {
			t.Fatalf("%s round-trips as %s", s, x)
		}
		if x.Weekday() != wd || x.Time().Weekday() != wd {
			t.Fatalf("%s: weekday %s, want %s", s, x.Weekday(), wd)
		}
		if DateOf(x.In(time.FixedZone("NY", -5*3600)).Add(23*time.Hour)) != x {
			t.Fatalf("%s: DateOf does not use the time's own location", s)
		}
	}
	f("1970-01-01", time.Thursday)
	f("1969-12-31", time.Wednesday)
	f("1962-01-02", time.Tuesday)
	f("2024-02-29", time.Thursday)
	f("2026-11-26", time.Thursday)
	f("2100-12-31", time.Friday)
	for _, bad := range []string{"", "2024-13-01", "2024-02-30", "10/10/2024", "2024-1-1"} {
		if _, err := ParseDate(bad); err == nil {
			t.Fatalf("ParseDate(%q) accepted", bad)
		}
	}
}

func TestEaster(t *testing.T) {
	f := func(y int, want string) {
		t.Helper()
		if got := easter(y).String(); got != want {
			t.Fatalf("easter(%d) = %s, want %s", y, got, want)
		}
	}
	f(1961, "1961-04-02")
	f(2000, "2000-04-23")
	f(2008, "2008-03-23")
	f(2011, "2011-04-24")
	f(2019, "2019-04-21")
	f(2024, "2024-03-31")
	f(2025, "2025-04-20")
	f(2026, "2026-04-05")
	f(2038, "2038-04-25")
}

func TestBondClosures(t *testing.T) {
	f := func(day string, closed bool, name string) {
		t.Helper()
		gotName, gotClosed := Bond.Closure(d(day))
		if gotClosed != closed || gotName != name {
			t.Fatalf("Bond.Closure(%s) = %q, %v; want %q, %v", day, gotName, gotClosed, name, closed)
		}
		if Bond.IsBusinessDay(d(day)) == closed {
			t.Fatalf("IsBusinessDay(%s) disagrees with Closure", day)
		}
	}
	f("2024-10-12", true, "Saturday")
	f("2024-10-13", true, "Sunday")
	f("2024-10-14", true, "Columbus Day")
	f("2024-11-11", true, "Veterans Day")
	f("2024-03-29", true, "Good Friday")
	f("2023-04-07", false, "")           // employment report: early close
	f("2026-04-03", false, "")           // SIFMA press release of 2026-03-20
	f("2025-04-18", true, "Good Friday") // standard practice
	f("2025-01-09", false, "")           // Carter day of mourning: early close only
	f("2021-12-31", false, "")           // New Year's Day on a Saturday is not observed
	f("2023-11-10", false, "")           // Veterans Day on a Saturday is not observed
	f("2018-11-12", true, "Veterans Day (observed)")
	f("2022-06-20", true, "Juneteenth (observed)")
	f("2021-06-18", false, "") // Juneteenth closures start in 2022
	f("2021-12-24", true, "Christmas Day (observed)")
	f("2020-07-03", true, "Independence Day (observed)")
	f("2023-01-02", true, "New Year's Day (observed)")
	f("2026-01-19", true, "Martin Luther King Jr. Day")
	f("2026-02-16", true, "Washington's Birthday")
	f("2026-05-25", true, "Memorial Day")
	f("2026-06-19", true, "Juneteenth")
	f("2026-09-07", true, "Labor Day")
	f("2026-10-12", true, "Columbus Day")
	f("2026-11-11", true, "Veterans Day")
	f("2026-11-26", true, "Thanksgiving Day")
	f("2026-11-27", false, "") // early close
	f("2026-12-25", true, "Christmas Day")
	f("2012-10-30", true, "Hurricane Sandy")
	f("2018-12-05", true, "National Day of Mourning (President George H. W. Bush)")
}

func TestBondPrevNext(t *testing.T) {
	f := func(day, prev, next string) {
		t.Helper()
		if got := Bond.Prev(d(day)).String(); got != prev {
			t.Fatalf("Prev(%s) = %s, want %s", day, got, prev)
		}
		if got := Bond.Next(d(day)).String(); got != next {
			t.Fatalf("Next(%s) = %s, want %s", day, got, next)
		}
	}
	f("2024-10-10", "2024-10-09", "2024-10-11")
	f("2024-10-15", "2024-10-11", "2024-10-16") // over a weekend and Columbus Day
	f("2024-04-01", "2024-03-28", "2024-04-02") // over Good Friday
	f("2024-01-02", "2023-12-29", "2024-01-03") // over New Year's Day
	f("2022-01-03", "2021-12-31", "2022-01-04") // December 31 open (New Year's Day on a Saturday)
	f("2026-11-27", "2026-11-25", "2026-11-30") // Thanksgiving
	f("2026-11-28", "2026-11-27", "2026-11-30") // from a Saturday
}

// TestBondMatchesTreasuryPublicationDays compares the calendar with the
// days Treasury published its 10-year constant-maturity yield, 1986 to
// 2024: FRED's DGS10 has a row for every weekday, "." where Treasury
// published nothing (fixture rates/fred_DGS10_1962-01-02_2024-08-07.csv).
// Before 1986 Martin Luther King Jr. Day was a business day and the rules
// do not hold.
func TestBondMatchesTreasuryPublicationDays(t *testing.T) {
	f, err := os.Open(fixtures.Path(t, "rates/fred_DGS10_1962-01-02_2024-08-07.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	n, closures := 0, 0
	for sc.Scan() {
		day, value, _ := strings.Cut(sc.Text(), ",")
		x := d(day)
		if x.Year() < 1986 {
			continue
		}
		n++
		missing := value == "."
		name, closed := Bond.Closure(x)
		if missing != closed {
			t.Errorf("%s (%s): DGS10 missing=%v, calendar closed=%v %q", day, x.Weekday(), missing, closed, name)
		}
		if closed {
			closures++
		}
	}
	if n < 9000 || closures < 350 {
		t.Fatalf("only %d weekdays (%d closures) compared", n, closures)
	}
}

// TestBondMatchesParYieldCurveDates checks that the business days between
// the first and last date of each as-published par yield curve file are
// exactly the dates it has.
func TestBondMatchesParYieldCurveDates(t *testing.T) {
	f := func(rel string, re *regexp.Regexp, layout string, want int) {
		t.Helper()
		b, err := os.ReadFile(fixtures.Path(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		have := map[Date]bool{}
		first, last := Date(1<<31-1), Date(-1<<31)
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			tm, err := time.Parse(layout, m[1])
			if err != nil {
				t.Fatal(err)
			}
			x := DateOf(tm)
			have[x] = true
			first, last = min(first, x), max(last, x)
		}
		if len(have) != want {
			t.Fatalf("%s: %d dates, want %d", rel, len(have), want)
		}
		days := Bond.BusinessDays(first, last)
		for _, x := range days {
			if !have[x] {
				t.Errorf("%s: business day %s has no curve", rel, x)
			}
		}
		if len(days) != len(have) {
			t.Errorf("%s: %d business days, %d curves", rel, len(days), len(have))
		}
	}
	f("treasury/daily_treasury_par_yield_curve_2024_asPublished.csv", regexp.MustCompile(`(?m)^(\d\d/\d\d/\d{4}),`), "01/02/2006", 196)
	f("treasury/daily_treasury_par_yield_curve_2022_feed.xml", regexp.MustCompile(`<d:NEW_DATE[^>]*>([0-9-]{10})T`), "2006-01-02", 48)
}

func TestBondHolidaysPerYear(t *testing.T) {
	for y := 1986; y <= 2100; y++ {
		hs := Bond.Holidays(y)
		if len(hs) < 9 || len(hs) > 14 {
			t.Fatalf("%d: %d holidays", y, len(hs))
		}
		for i, h := range hs {
			if h.Date.IsWeekend() {
				t.Fatalf("%d: %s on a weekend (%s)", y, h.Name, h.Date)
			}
			if i > 0 && hs[i-1].Date >= h.Date {
				t.Fatalf("%d: holidays not in order or doubled at %s", y, h.Date)
			}
		}
	}
	// Outside the prepared range the rules still apply.
	if name, closed := Bond.Closure(d("2101-07-04")); !closed || name != "Independence Day" {
		t.Fatalf("2101-07-04: %q %v", name, closed)
	}
}

func BenchmarkBondPrev(b *testing.B) {
	x := d("2024-04-01")
	for b.Loop() {
		if Bond.Prev(x) != d("2024-03-28") {
			b.Fatal("wrong")
		}
	}
}
