package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Catalog is what the data root holds, read from the directory tree (day
// files and staging parts alike): the candle resolutions with their days,
// every venue and every day.
type Catalog struct {
	// Dates are the UTC days with candles at any resolution, oldest first.
	Dates []string
	// Venues are the venue partition values, sorted.
	Venues []string
	// Resolutions lists the stored candle intervals, finest first.
	Resolutions []Resolution
}

// Resolution is one stored candle interval and the days it covers.
type Resolution struct {
	Interval  string
	FirstDate string
	LastDate  string
	Days      int
}

// ScanCatalog reads the catalog of root. A root without candles gives an
// empty catalog.
func ScanCatalog(root string) Catalog { return ScanCatalogOf(root, nil) }

// ScanCatalogOf is ScanCatalog over the venues keep accepts (every venue
// when keep is nil): its venues, and the days and resolutions that hold
// candles of at least one of them.
func ScanCatalogOf(root string, keep func(venue string) bool) Catalog {
	var cat Catalog
	dates := map[string]bool{}
	venues := map[string]bool{}
	for _, iv := range Intervals {
		days := map[string]bool{}
		for _, base := range []string{filepath.Join(root, KindCandles, "interval="+iv),
			filepath.Join(root, StagingDir, KindCandles, "interval="+iv)} {
			des, _ := os.ReadDir(base)
			for _, de := range des {
				d, ok := strings.CutPrefix(de.Name(), "date=")
				if !ok || !de.IsDir() || len(d) != len(DateFormat) {
					continue
				}
				ves, _ := os.ReadDir(filepath.Join(base, de.Name()))
				for _, ve := range ves {
					if v, ok := strings.CutPrefix(ve.Name(), "venue="); ok && ve.IsDir() && v != "" && (keep == nil || keep(v)) {
						venues[v] = true
						days[d] = true
					}
				}
			}
		}
		if len(days) == 0 {
			continue
		}
		ds := sortedKeys(days)
		for _, d := range ds {
			dates[d] = true
		}
		cat.Resolutions = append(cat.Resolutions, Resolution{Interval: iv, FirstDate: ds[0], LastDate: ds[len(ds)-1], Days: len(ds)})
	}
	cat.Dates = sortedKeys(dates)
	cat.Venues = sortedKeys(venues)
	return cat
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
