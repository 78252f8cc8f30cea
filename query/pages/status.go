package pages

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/web"
)

// The status page renders whatever GET /status answers: every top-level
// list of objects (sources today; chains and feeds as they are added) as a
// table, every top-level object as a list of figures, by rules on the
// field names (…At is a time shown with its age, …Ms a duration, state and
// status a badge), so fields added to /status appear without a change
// here.

// statusView is the status page.
type statusView struct {
	Facts  []cell
	Tables []table
	Groups []group
}

// table is a list of objects of the answer.
type table struct {
	Key     string
	Title   string
	Columns []column
	Rows    []row
	// Healthy counts rows whose state is good.
	Healthy int
}

type column struct{ Key, Title string }

type row struct {
	ID    string
	Cells []cell
}

// cell is one figure: Text as shown, Raw as the JSON has it (for the
// browser test), Title a longer form (the full time), Class for
// alignment, Badge for states.
type cell struct {
	Key, Label    string
	Text, Raw     string
	Title         string
	Class         string
	Badge         string
	IsPlaceholder bool
}

// group is an object of the answer, flattened one level.
type group struct {
	Key, Title string
	Cells      []cell
	Empty      string
}

func (p *Pages) renderStatus(c fiber.Ctx, status int, body []byte) error {
	v, err := decodeOrdered(body)
	if err != nil || v.Kind != "object" {
		return err
	}
	now := p.c.Now()
	view := statusView{}
	for _, k := range v.Keys {
		e := v.Obj[k]
		switch {
		case e.Kind == "array" && allObjects(e.Arr):
			view.Tables = append(view.Tables, tableOf(k, e.Arr, now))
		case e.Kind == "object" || e.Kind == "null":
			view.Groups = append(view.Groups, groupOf(k, e, now))
		default:
			view.Facts = append(view.Facts, cellOf(k, e, now))
		}
	}
	return p.render(c, status, "status", web.Page{Title: "Status", Nav: web.NavStatus, Data: view,
		Description: "Ingestion state and freshness of every source, as GET /status answers it (JSON for API clients)."})
}

func allObjects(vs []*value) bool {
	for _, v := range vs {
		if v.Kind != "object" {
			return false
		}
	}
	return true
}

func tableOf(key string, rows []*value, now time.Time) table {
	t := table{Key: key, Title: title(key)}
	seen := map[string]bool{}
	for _, r := range rows {
		for _, k := range r.Keys {
			if !seen[k] {
				seen[k] = true
				t.Columns = append(t.Columns, column{Key: k, Title: title(k)})
			}
		}
	}
	for _, r := range rows {
		rw := row{ID: rowID(r)}
		for _, col := range t.Columns {
			e := r.Obj[col.Key]
			if e == nil {
				e = &value{Kind: "null"}
			}
			c := cellOf(col.Key, e, now)
			rw.Cells = append(rw.Cells, c)
			if (col.Key == "state" || col.Key == "status") && c.Badge == "good" {
				t.Healthy++
			}
		}
		t.Rows = append(t.Rows, rw)
	}
	return t
}

// rowID names a row by its first identifying field.
func rowID(r *value) string {
	for _, k := range []string{"source", "name", "chain", "symbol", "id"} {
		if e := r.get(k); e != nil && e.Kind == "string" {
			return e.Str
		}
	}
	if len(r.Keys) > 0 {
		return r.Obj[r.Keys[0]].text()
	}
	return ""
}

func groupOf(key string, v *value, now time.Time) group {
	g := group{Key: key, Title: title(key)}
	if v.Kind == "null" {
		g.Empty = "none in this process"
		return g
	}
	for _, k := range v.Keys {
		e := v.Obj[k]
		if e.Kind == "object" {
			for _, k2 := range e.Keys {
				c := cellOf(k2, e.Obj[k2], now)
				c.Key, c.Label = k+"."+k2, title(k)+" "+k2
				g.Cells = append(g.Cells, c)
			}
			continue
		}
		g.Cells = append(g.Cells, cellOf(k, e, now))
	}
	if len(g.Cells) == 0 {
		g.Empty = "none"
	}
	return g
}

// cellOf formats one field for people.
func cellOf(key string, v *value, now time.Time) cell {
	c := cell{Key: key, Label: title(key), Raw: v.text()}
	switch {
	case v.Kind == "null":
		c.Text, c.IsPlaceholder = "–", true
	case strings.HasSuffix(key, "At") && v.Kind == "string":
		c.Text, c.Title = web.Age(v.Str, now)+" ago", web.DateTime(v.Str)
	case strings.HasSuffix(key, "Ms") && v.Kind == "number":
		c.Text, c.Class = web.Millis(v.int()), "n"
	case (key == "state" || key == "status") && v.Kind == "string":
		c.Text, c.Badge = v.Str, stateBadge(v.Str)
	case v.Kind == "number":
		c.Class = "n"
		if n, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
			c.Text = web.Count(n)
		} else if f, err := strconv.ParseFloat(v.Str, 64); err == nil {
			c.Text = web.Number(f)
		} else {
			c.Text = v.Str
		}
	case v.Kind == "bool":
		c.Text = map[string]string{"true": "yes", "false": "no"}[v.Str]
	case v.Kind == "string":
		c.Text = v.Str
	default:
		c.Text, c.Raw = v.compact(), v.compact()
	}
	return c
}

// stateBadge is the colour of a state: good, warn or bad.
func stateBadge(s string) string {
	switch s {
	case "running", "ok", "finished", "live", "fresh", "healthy":
		return "good"
	case "failed", "failing", "unreachable", "error", "stale", "down":
		return "bad"
	}
	return "warn"
}

// title turns a JSON field name into a heading: lastIngestAt is "Last
// ingest", freshnessMs "Freshness", deadLetters "Dead letters".
func title(key string) string {
	k := key
	for _, suf := range []string{"At", "Ms"} {
		if strings.HasSuffix(k, suf) && len(k) > len(suf) {
			k = strings.TrimSuffix(k, suf)
			break
		}
	}
	var b strings.Builder
	for i, r := range k {
		switch {
		case i == 0:
			b.WriteRune(unicode.ToUpper(r))
		case unicode.IsUpper(r):
			b.WriteRune(' ')
			b.WriteRune(unicode.ToLower(r))
		case r == '_':
			b.WriteRune(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
