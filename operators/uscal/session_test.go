package uscal

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

// TestNYSEPublishedCalendar checks every weekday of 2024 to 2027 against
// the exchange's published holidays and early closes
// (testdata/nyse_2024_2027.tsv names the source).
func TestNYSEPublishedCalendar(t *testing.T) {
	f, err := os.Open("testdata/nyse_2024_2027.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct{ kind, name string }
	want := map[Date]row{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			t.Fatalf("bad row %q", line)
		}
		want[d(cols[0])] = row{cols[1], cols[2]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != 50 {
		t.Fatalf("read %d rows, want 50", len(want))
	}
	for day := d("2024-01-01"); day <= d("2027-12-31"); day++ {
		if day.IsWeekend() {
			if NYSE.IsBusinessDay(day) {
				t.Fatalf("%s: a weekend day is a trading day", day)
			}
			continue
		}
		w := want[day]
		name, closed := NYSE.Closure(day)
		if closed != (w.kind == "holiday") || (closed && name != w.name) {
			t.Errorf("NYSE.Closure(%s) = %q, %v; published: %q %q", day, name, closed, w.kind, w.name)
		}
		ename, early := NYSEEarlyClose(day)
		if early != (w.kind == "early") || (early && ename != w.name) {
			t.Errorf("NYSEEarlyClose(%s) = %q, %v; published: %q %q", day, ename, early, w.kind, w.name)
		}
	}
}

func TestNYSERules(t *testing.T) {
	f := func(day string, closed bool, name string) {
		t.Helper()
		gotName, gotClosed := NYSE.Closure(d(day))
		if gotClosed != closed || gotName != name {
			t.Fatalf("NYSE.Closure(%s) = %q, %v; want %q, %v", day, gotName, gotClosed, name, closed)
		}
	}
	f("2022-01-01", true, "Saturday") // New Year's Day on a Saturday is not observed:
	f("2021-12-31", false, "")        // the Friday before trades.
	f("2021-06-18", false, "")        // Juneteenth was not an exchange holiday before 2022.
	f("2022-06-20", true, "Juneteenth (observed)")
	f("2023-01-02", true, "New Year's Day (observed)")
	f("2024-10-14", false, "")           // Columbus Day: the bond market closes, the exchange trades.
	f("2024-11-11", false, "")           // Veterans Day likewise.
	f("2021-04-02", true, "Good Friday") // closed although the bond market traded
	f("2018-12-05", true, "National Day of Mourning (President George H. W. Bush)")
	e := func(day string, want bool) {
		t.Helper()
		if _, got := NYSEEarlyClose(d(day)); got != want {
			t.Fatalf("NYSEEarlyClose(%s) = %v, want %v", day, got, want)
		}
	}
	e("2023-07-03", true)  // a Monday before a Tuesday July 4
	e("2020-07-02", false) // July 3 was the observed holiday; no early close before it
	e("2018-12-24", true)  // Christmas Eve on a Monday
	e("2022-12-23", false) // Christmas Eve on a Saturday: the Friday is a full day
	e("2024-12-28", false)
}

func TestSessionAt(t *testing.T) {
	f := func(at string, want SessionLabel) {
		t.Helper()
		ts, err := time.Parse(time.RFC3339, at)
		if err != nil {
			t.Fatal(err)
		}
		if got := SessionAt(ts).Label; got != want {
			t.Fatalf("SessionAt(%s) = %s, want %s", at, got, want)
		}
	}
	// A Wednesday in winter (EST, UTC-5).
	f("2024-01-10T08:59:59Z", Overnight)
	f("2024-01-10T09:00:00Z", PreMarket) // 04:00 EST
	f("2024-01-10T14:29:59Z", PreMarket)
	f("2024-01-10T14:30:00Z", Regular) // 09:30 EST
	f("2024-01-10T20:59:59Z", Regular)
	f("2024-01-10T21:00:00Z", AfterHours) // 16:00 EST
	f("2024-01-11T00:59:59Z", AfterHours)
	f("2024-01-11T01:00:00Z", Overnight) // 20:00 EST
	// The same hours in summer (EDT, UTC-4).
	f("2024-07-10T13:30:00Z", Regular)
	f("2024-07-10T13:29:59Z", PreMarket)
	f("2024-07-10T20:00:00Z", AfterHours)
	// Daylight-saving changes: Sunday 2024-03-10 02:00 EST becomes 03:00 EDT;
	// on Monday the open is 13:30 UTC, the Friday before 14:30 UTC.
	f("2024-03-08T14:29:00Z", PreMarket)
	f("2024-03-11T13:30:00Z", Regular)
	f("2024-03-11T13:29:00Z", PreMarket)
	// Fall back, Sunday 2024-11-03: Monday opens at 14:30 UTC again.
	f("2024-11-04T14:29:00Z", PreMarket)
	f("2024-11-04T14:30:00Z", Regular)
	// The weekend: Friday after-hours ends at 20:00, Sunday 20:00 starts the
	// Monday overnight session.
	f("2024-01-12T23:59:00Z", AfterHours) // Friday 18:59 EST
	f("2024-01-13T01:00:00Z", Weekend)    // Friday 20:00 EST
	f("2024-01-13T17:00:00Z", Weekend)    // Saturday
	f("2024-01-15T00:59:00Z", Weekend)    // Sunday 19:59 EST, before MLK Day
	f("2024-01-15T01:00:00Z", Weekend)    // Sunday 20:00 EST, but Monday is MLK Day
	f("2024-01-15T15:00:00Z", Weekend)    // MLK Day 10:00 EST: holiday
	f("2024-01-16T01:00:00Z", Overnight)  // MLK Day 20:00 EST: before Tuesday's session
	f("2024-01-21T01:00:00Z", Weekend)    // Saturday 20:00 EST
	f("2024-01-22T00:59:00Z", Weekend)    // Sunday 19:59 EST
	f("2024-01-22T01:00:00Z", Overnight)  // Sunday 20:00 EST before an ordinary Monday
	// Early close: 2024-11-29 closes at 13:00 EST, after-hours until 17:00,
	// then the weekend.
	f("2024-11-29T17:59:00Z", Regular)
	f("2024-11-29T18:00:00Z", AfterHours)
	f("2024-11-29T21:59:00Z", AfterHours)
	f("2024-11-29T22:00:00Z", Weekend)
	// Early close before a trading day: 2024-07-03 (Wednesday; July 4 is a
	// holiday) and 2024-12-24 (Tuesday; Christmas) lead to closed days;
	// 2025-07-03 likewise. Good Friday 2024: Thursday evening is the weekend.
	f("2024-07-03T16:59:00Z", Regular)
	f("2024-07-03T17:00:00Z", AfterHours)
	f("2024-07-03T21:00:00Z", Weekend)
	f("2024-03-29T00:00:00Z", Weekend) // Thursday 20:00 EDT before Good Friday
	f("2024-03-28T23:59:00Z", AfterHours)
	// Moments in another zone give the same answer.
	tokyo := time.FixedZone("JST", 9*3600)
	if got := SessionAt(time.Date(2024, 1, 10, 23, 30, 0, 0, tokyo)).Label; got != Regular {
		t.Fatalf("09:30 EST read in Tokyo: %s", got)
	}
	s := SessionAt(time.Date(2024, 12, 25, 15, 0, 0, 0, time.UTC))
	if s.Label != Weekend || s.Closure != "Christmas Day" {
		t.Fatalf("Christmas: %+v", s)
	}
	s = SessionAt(time.Date(2024, 12, 24, 15, 0, 0, 0, time.UTC))
	if s.Label != Regular || s.EarlyClose != "Christmas Eve" {
		t.Fatalf("Christmas Eve: %+v", s)
	}
}

func BenchmarkSessionAt(b *testing.B) {
	t0 := time.Date(2025, 11, 28, 15, 0, 0, 0, time.UTC)
	for i := 0; b.Loop(); i++ {
		_ = SessionAt(t0.Add(time.Duration(i%10080) * time.Minute))
	}
}
