package replay

import (
	"fmt"
	"strings"
)

// splitCSV splits one CSV line into fields, honouring double quotes (a
// quoted field may hold commas and doubled quotes, not line breaks).
func splitCSV(line string, out []string) []string {
	out = out[:0]
	for {
		if strings.HasPrefix(line, `"`) {
			var sb strings.Builder
			i := 1
			for {
				j := strings.IndexByte(line[i:], '"')
				if j < 0 { // unterminated: take the rest
					sb.WriteString(line[i:])
					return append(out, sb.String())
				}
				sb.WriteString(line[i : i+j])
				i += j + 1
				if i < len(line) && line[i] == '"' {
					sb.WriteByte('"')
					i++
					continue
				}
				break
			}
			out = append(out, sb.String())
			line = line[i:]
			if len(line) == 0 {
				return out
			}
			if line[0] != ',' {
				// Junk after a closing quote: keep it in the next field so
				// the row has a wrong shape and gets rejected.
				return append(out, line)
			}
			line = line[1:]
			continue
		}
		i := strings.IndexByte(line, ',')
		if i < 0 {
			return append(out, line)
		}
		out = append(out, line[:i])
		line = line[i+1:]
	}
}

// columnIndex maps lower-cased header names to their positions.
func columnIndex(cols []string) (map[string]int, error) {
	idx := make(map[string]int, len(cols))
	for i, c := range cols {
		c = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(c, "\ufeff")))
		if c == "" {
			continue
		}
		if _, dup := idx[c]; dup {
			return nil, fmt.Errorf("bad header: duplicate column %q", c)
		}
		idx[c] = i
	}
	return idx, nil
}
