package check

import (
	"slices"
	"testing"
)

func TestSuggest(t *testing.T) {
	for id, want := range map[string][]string{
		"fsync":               {"fsync-before-write", "fsync-error-ignored"},
		"Data-Not-Synced":     {"data-not-synced"},
		"rename-before-fsync": {"rename-before-sync"},
		"nope":                nil,
		"":                    nil,
	} {
		if got := Suggest(id); !slices.Equal(got, want) {
			t.Errorf("Suggest(%q) = %q, want %q", id, got, want)
		}
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance = %d, want 3", d)
	}
}
