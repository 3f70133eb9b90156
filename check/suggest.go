package check

import "strings"

// Suggest names the rules a mistyped ID may mean: those it is a prefix
// of or, failing that, the closest within an edit distance of 3.
func Suggest(id string) []string {
	id = strings.ToLower(id)
	if id == "" {
		return nil
	}
	var prefixed, closest []string
	best := 4
	for _, r := range registry {
		if strings.HasPrefix(r.ID, id) {
			prefixed = append(prefixed, r.ID)
		}
		switch d := editDistance(id, r.ID); {
		case d < best:
			best, closest = d, []string{r.ID}
		case d == best:
			closest = append(closest, r.ID)
		}
	}
	if len(prefixed) > 0 {
		return prefixed
	}
	return closest
}

// editDistance is the Levenshtein distance between a and b, in bytes (rule
// IDs are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
